#include "kube/api_config.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hami::kube {
namespace {

std::optional<std::string> read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return std::move(text).str();
}

std::string trim(std::string s) {
  const auto end = s.find_last_not_of(" \t\r\n");
  s.erase(end == std::string::npos ? 0 : end + 1);
  const auto begin = s.find_first_not_of(" \t\r\n");
  s.erase(0, begin == std::string::npos ? s.size() : begin);
  return s;
}

std::optional<std::string> non_empty(const GetEnv& env, const std::string& name) {
  auto value = env(name);
  if (value && value->empty())
    return std::nullopt;
  return value;
}

}  // namespace

GetEnv process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    // getenv is read-only here; the host never calls setenv.
    const char* value = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe)
    if (value == nullptr)
      return std::nullopt;
    return std::string(value);
  };
}

ApiConfig in_cluster_config(const GetEnv& env, const std::filesystem::path& account_dir) {
  const auto host = non_empty(env, "KUBERNETES_SERVICE_HOST");
  const auto port = non_empty(env, "KUBERNETES_SERVICE_PORT");
  if (!host || !port) {
    throw ApiConfigError(
        "in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both "
        "be set (missing " +
        std::string(!host ? "KUBERNETES_SERVICE_HOST" : "KUBERNETES_SERVICE_PORT") + ")");
  }
  ApiConfig out;
  // An IPv6 literal needs brackets in a URL; a name or IPv4 never has ':'.
  const bool ipv6 = host->find(':') != std::string::npos && host->front() != '[';
  out.server = "https://" + (ipv6 ? "[" + *host + "]" : *host) + ":" + *port;

  const auto ca_file = account_dir / "ca.crt";
  auto ca = read_file(ca_file);
  if (!ca || ca->empty())
    throw ApiConfigError("in-cluster configuration: " + ca_file.string() +
                         ": cannot be read or is empty");
  out.ca_pem = std::move(*ca);
  out.token = std::make_shared<FileTokenSource>(account_dir / "token");
  // The namespace file is absent when automountServiceAccountToken projects
  // only the token; "default" is then client-go's answer as well.
  if (auto ns = read_file(account_dir / "namespace")) {
    std::string trimmed = trim(std::move(*ns));
    if (!trimmed.empty())
      out.namespace_ = std::move(trimmed);
  }
  out.origin = "in-cluster";
  return out;
}

ApiConfig resolve_api_config(const std::filesystem::path& kubeconfig, const GetEnv& env) {
  if (!kubeconfig.empty())
    return load_kubeconfig(kubeconfig);
  if (non_empty(env, "KUBERNETES_SERVICE_HOST") && non_empty(env, "KUBERNETES_SERVICE_PORT"))
    return in_cluster_config(env);
  if (const auto list = non_empty(env, "KUBECONFIG")) {
    // A KUBECONFIG list is merged by kubectl; this client takes the first
    // file, which holds the context in the common single-file case.
    const std::string first = list->substr(0, list->find(':'));
    if (!first.empty())
      return load_kubeconfig(first);
  }
  if (const auto home = non_empty(env, "HOME"))
    return load_kubeconfig(std::filesystem::path(*home) / ".kube" / "config");
  throw ApiConfigError(
      "no Kubernetes API configuration: not in a cluster (KUBERNETES_SERVICE_HOST/PORT unset), "
      "KUBECONFIG and HOME unset");
}

}  // namespace hami::kube
