#include "webhook_tls/ca_bundle_patch.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "k8s/json_depth.hpp"
#include "k8s/json_read.hpp"
#include "platform/base64.hpp"

namespace hami::webhook_tls {
namespace {

const rapidjson::Value* object_member(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject())
    return nullptr;
  const auto it = object.FindMember(key);
  return it != object.MemberEnd() && it->value.IsObject() ? &it->value : nullptr;
}

void write_string(rapidjson::Writer<rapidjson::StringBuffer>& w, std::string_view text) {
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

}  // namespace

CaBundlePatch ca_bundle_patch(std::string_view configuration_json,
                              std::string_view service_namespace, std::string_view service_name,
                              std::string_view ca_pem) {
  if (k8s::json_nests_deeper_than(configuration_json)) {
    throw WebhookConfigurationFormatError("MutatingWebhookConfiguration reply nests deeper than " +
                                          std::to_string(k8s::kMaxJsonDepth));
  }
  rapidjson::Document doc;
  doc.Parse(configuration_json.data(), configuration_json.size());
  if (doc.HasParseError()) {
    throw WebhookConfigurationFormatError(
        std::string("MutatingWebhookConfiguration reply is not JSON: ") +
        rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
        std::to_string(doc.GetErrorOffset()));
  }
  const rapidjson::Value* meta = object_member(doc, "metadata");
  if (meta == nullptr)
    throw WebhookConfigurationFormatError("MutatingWebhookConfiguration reply has no metadata");
  const std::string version = k8s::json::string_or_empty(*meta, "resourceVersion");
  if (version.empty()) {
    throw WebhookConfigurationFormatError(
        "MutatingWebhookConfiguration reply has no metadata.resourceVersion");
  }
  const std::string encoded = platform::base64_encode(ca_pem);
  CaBundlePatch out;
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartArray();
  w.StartObject();
  w.Key("op");
  w.String("test");
  w.Key("path");
  w.String("/metadata/resourceVersion");
  w.Key("value");
  write_string(w, version);
  w.EndObject();
  const auto webhooks = doc.FindMember("webhooks");
  if (webhooks != doc.MemberEnd() && webhooks->value.IsArray()) {
    const auto& list = webhooks->value;
    for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
      const rapidjson::Value* client = object_member(list[i], "clientConfig");
      const rapidjson::Value* service = client ? object_member(*client, "service") : nullptr;
      if (service == nullptr || k8s::json::string_or_empty(*service, "name") != service_name ||
          k8s::json::string_or_empty(*service, "namespace") != service_namespace) {
        continue;
      }
      ++out.matched;
      if (k8s::json::string_or_empty(*client, "caBundle") == encoded)
        continue;
      ++out.outdated;
      w.StartObject();
      w.Key("op");
      w.String("add");  // replaces the member when present (RFC 6902 §4.1)
      w.Key("path");
      write_string(w, "/webhooks/" + std::to_string(i) + "/clientConfig/caBundle");
      w.Key("value");
      write_string(w, encoded);
      w.EndObject();
    }
  }
  w.EndArray();
  if (out.outdated > 0)
    out.json.assign(buffer.GetString(), buffer.GetSize());
  return out;
}

}  // namespace hami::webhook_tls
