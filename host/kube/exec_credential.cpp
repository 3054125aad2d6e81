#include "kube/exec_credential.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "cluster/node_lock.hpp"
#include "platform/base64.hpp"

namespace hami::kube {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw ExecCredentialError(what);
}

// A string member of `object`; empty when absent or null.
std::string optional_string(const rapidjson::Value& object, const char* key,
                            std::string_view path) {
  const auto member = object.FindMember(key);
  if (member == object.MemberEnd() || member->value.IsNull())
    return {};
  if (!member->value.IsString())
    fail(std::string(path) + key + ": expected a string");
  return std::string(member->value.GetString(), member->value.GetStringLength());
}

std::string quoted(std::string_view text) {
  constexpr size_t kMaxShown = 80;
  std::string out = "\"";
  out.append(text.substr(0, kMaxShown));
  if (text.size() > kMaxShown)
    out += "…";
  return out + "\"";
}

}  // namespace

ExecCredential parse_exec_credential(std::string_view json, std::string_view api_version) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    fail(std::string("not JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()) +
         " at offset " + std::to_string(doc.GetErrorOffset()));
  }
  if (!doc.IsObject())
    fail("expected a JSON object");
  const std::string kind = optional_string(doc, "kind", "");
  if (kind != "ExecCredential")
    fail("kind is " + quoted(kind) + ", expected \"ExecCredential\"");
  const std::string version = optional_string(doc, "apiVersion", "");
  if (version != api_version) {
    fail("apiVersion is " + quoted(version) + ", expected \"" + std::string(api_version) +
         "\" (the kubeconfig's exec.apiVersion)");
  }
  const auto status = doc.FindMember("status");
  if (status == doc.MemberEnd() || status->value.IsNull())
    fail("status is missing");
  if (!status->value.IsObject())
    fail("status: expected an object");
  ExecCredential out;
  out.token = optional_string(status->value, "token", "status.");
  out.client_certificate_pem = optional_string(status->value, "clientCertificateData", "status.");
  out.client_key_pem = optional_string(status->value, "clientKeyData", "status.");
  if (out.client_certificate_pem.empty() != out.client_key_pem.empty()) {
    fail(out.client_certificate_pem.empty()
             ? "status.clientKeyData is set without status.clientCertificateData"
             : "status.clientCertificateData is set without status.clientKeyData");
  }
  if (out.token.empty() && out.client_certificate_pem.empty())
    fail("status has neither a token nor clientCertificateData and clientKeyData");
  const std::string expiry = optional_string(status->value, "expirationTimestamp", "status.");
  if (!expiry.empty()) {
    out.expires_at = cluster::parse_rfc3339(expiry);
    if (!out.expires_at)
      fail("status.expirationTimestamp " + quoted(expiry) + " is not an RFC 3339 time");
  }
  return out;
}

std::string exec_info_json(std::string_view api_version,
                           const std::optional<ExecClusterInfo>& cluster) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  const auto string = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("kind");
  string("ExecCredential");
  w.Key("apiVersion");
  string(api_version);
  w.Key("spec");
  w.StartObject();
  if (cluster) {
    w.Key("cluster");
    w.StartObject();
    w.Key("server");
    string(cluster->server);
    if (!cluster->tls_server_name.empty()) {
      w.Key("tls-server-name");
      string(cluster->tls_server_name);
    }
    if (cluster->insecure_skip_verify) {
      w.Key("insecure-skip-tls-verify");
      w.Bool(true);
    }
    if (!cluster->ca_pem.empty()) {
      w.Key("certificate-authority-data");
      string(platform::base64_encode(cluster->ca_pem));
    }
    w.EndObject();
  }
  w.Key("interactive");
  w.Bool(false);
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace hami::kube
