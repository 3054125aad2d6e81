#include "webhook_tls/tls_secret.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <utility>

#include "k8s/json_depth.hpp"
#include "platform/base64.hpp"

namespace hami::webhook_tls {
namespace {

rapidjson::Document parse_object(std::string_view json) {
  if (k8s::json_nests_deeper_than(json))
    throw SecretFormatError("Secret reply nests deeper than " + std::to_string(k8s::kMaxJsonDepth));
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    throw SecretFormatError(std::string("Secret reply is not JSON: ") +
                            rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
                            std::to_string(doc.GetErrorOffset()));
  }
  if (!doc.IsObject())
    throw SecretFormatError("Secret reply is not a JSON object");
  const auto meta = doc.FindMember("metadata");
  if (meta == doc.MemberEnd() || !meta->value.IsObject())
    throw SecretFormatError("Secret reply has no metadata object");
  return doc;
}

std::string member_string(const rapidjson::Value& object, const char* key) {
  const auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString())
    return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

std::array<std::pair<const char*, const std::string*>, 4> fields(const TlsBundle& b) {
  return {{{kCertKey, &b.cert_pem},
           {kKeyKey, &b.key_pem},
           {kCaKey, &b.ca_pem},
           {kCaKeyKey, &b.ca_key_pem}}};
}

void set_member(rapidjson::Value& object, const char* key, rapidjson::Value value,
                rapidjson::Document::AllocatorType& a) {
  const auto it = object.FindMember(key);
  if (it != object.MemberEnd())
    it->value = std::move(value);
  else
    object.AddMember(rapidjson::Value(key, a), std::move(value), a);
}

void set_data(rapidjson::Value& data, const TlsBundle& bundle,
              rapidjson::Document::AllocatorType& a) {
  for (const auto& [key, pem] : fields(bundle)) {
    if (pem->empty()) {
      // EraseMember keeps the other members' order (RemoveMember would not).
      // (every copy of a duplicated key).
      for (auto it = data.FindMember(key); it != data.MemberEnd(); it = data.FindMember(key))
        data.EraseMember(it);
      continue;
    }
    const std::string encoded = platform::base64_encode(*pem);
    set_member(
        data, key,
        rapidjson::Value(encoded.data(), static_cast<rapidjson::SizeType>(encoded.size()), a), a);
  }
}

std::string text_of(const rapidjson::Document& doc) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

StoredSecret parse_secret(std::string_view json) {
  const rapidjson::Document doc = parse_object(json);
  StoredSecret out;
  out.resource_version = member_string(doc["metadata"], "resourceVersion");
  out.type = member_string(doc, "type");
  const auto data = doc.FindMember("data");
  if (data == doc.MemberEnd() || !data->value.IsObject())
    return out;
  TlsBundle& b = out.bundle;
  const std::array<std::pair<const char*, std::string*>, 4> targets{{{kCertKey, &b.cert_pem},
                                                                     {kKeyKey, &b.key_pem},
                                                                     {kCaKey, &b.ca_pem},
                                                                     {kCaKeyKey, &b.ca_key_pem}}};
  for (const auto& [key, target] : targets) {
    const auto it = data->value.FindMember(key);
    if (it == data->value.MemberEnd())
      continue;
    std::optional<std::string> decoded;
    if (it->value.IsString())
      decoded = platform::base64_decode(
          std::string_view(it->value.GetString(), it->value.GetStringLength()));
    if (decoded) {
      *target = std::move(*decoded);
    } else {
      out.problem += (out.problem.empty() ? "" : "; ") + std::string(key) + " is not base64";
    }
  }
  return out;
}

std::string new_secret_json(const std::string& ns, const std::string& name,
                            const TlsBundle& bundle) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("apiVersion", "v1", a);
  doc.AddMember("kind", "Secret", a);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", rapidjson::Value(name.c_str(), a), a);
  meta.AddMember("namespace", rapidjson::Value(ns.c_str(), a), a);
  rapidjson::Value labels(rapidjson::kObjectType);
  labels.AddMember("app.kubernetes.io/managed-by", "hami-scheduler", a);
  meta.AddMember("labels", labels, a);
  doc.AddMember("metadata", meta, a);
  doc.AddMember("type", rapidjson::StringRef(kTlsSecretType), a);
  rapidjson::Value data(rapidjson::kObjectType);
  set_data(data, bundle, a);
  doc.AddMember("data", data, a);
  return text_of(doc);
}

std::string updated_secret_json(std::string_view existing, const TlsBundle& bundle) {
  rapidjson::Document doc = parse_object(existing);
  auto& a = doc.GetAllocator();
  const auto data = doc.FindMember("data");
  if (data == doc.MemberEnd() || !data->value.IsObject()) {
    set_member(doc, "data", rapidjson::Value(rapidjson::kObjectType), a);
  }
  set_data(doc["data"], bundle, a);
  return text_of(doc);
}

}  // namespace hami::webhook_tls
