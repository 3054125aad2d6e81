#include "webhook_tls/ca_bundle_patch.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

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

bool calls_target(const rapidjson::Value& client, const WebhookTarget& target) {
  if (const rapidjson::Value* service = object_member(client, "service")) {
    return k8s::json::string_or_empty(*service, "name") == target.service_name &&
           k8s::json::string_or_empty(*service, "namespace") == target.service_namespace;
  }
  const std::string host = https_url_host(k8s::json::string_or_empty(client, "url"));
  return !host.empty() && std::find(target.url_hosts.begin(), target.url_hosts.end(), host) !=
                              target.url_hosts.end();
}

}  // namespace

std::string https_url_host(std::string_view url) {
  constexpr std::string_view scheme = "https://";
  if (url.substr(0, scheme.size()) != scheme)
    return {};
  std::string_view rest = url.substr(scheme.size());
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (rest.find('@') != std::string_view::npos)
    return {};  // the API server refuses user info; so do we
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    return close == std::string_view::npos ? std::string{} : std::string(rest.substr(1, close - 1));
  }
  return std::string(rest.substr(0, rest.find(':')));
}

CaBundlePatch ca_bundle_patch(std::string_view configuration_json, const WebhookTarget& target,
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
      if (client == nullptr || !calls_target(*client, target))
        continue;
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
