#include "config/self_managed_tls_config.hpp"

#include <arpa/inet.h>

#include <array>

namespace hami::config {
namespace {

constexpr int64_t kMaxDays = 36500;  // 100 years
constexpr int64_t kMaxCheckSeconds = 7 * 24 * 3600;

bool is_ip_address(const std::string& text) {
  std::array<unsigned char, 16> bytes{};
  return inet_pton(AF_INET, text.c_str(), bytes.data()) == 1 ||
         inet_pton(AF_INET6, text.c_str(), bytes.data()) == 1;
}

std::vector<std::string> read_list(const YamlReader& r, const YAML::Node& node,
                                   const std::string& path) {
  r.expect_sequence(node, path);
  std::vector<std::string> out;
  for (size_t i = 0; i < node.size(); ++i) {
    out.push_back(r.string(node[i], path + "[" + std::to_string(i) + "]", false));
  }
  return out;
}

}  // namespace

bool is_dns_name(std::string_view name) {
  if (name.empty() || name.size() > 253)
    return false;
  size_t label = 0;
  char previous = '.';
  for (const char c : name) {
    if (c == '.') {
      if (label == 0 || previous == '-')
        return false;
      label = 0;
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
      if (label == 0 && c == '-')
        return false;
      if (++label > 63)
        return false;
    } else {
      return false;
    }
    previous = c;
  }
  return label > 0 && previous != '-';
}

SelfManagedTlsConfig read_self_managed_tls(const YamlReader& r, const YAML::Node& node,
                                           const std::string& path) {
  r.expect_mapping(
      node, path,
      {"secret", "namespace", "service", "webhookConfiguration", "dnsNames", "ipAddresses",
       "caDays", "leafDays", "renewBeforeDays", "checkIntervalSeconds", "directory"});
  const auto key = [&path](std::string_view name) { return join_path(path, name); };
  SelfManagedTlsConfig out;
  const auto name_key = [&](const char* name, std::string& field, bool required) {
    const auto n = node.IsMap() ? node[name] : YAML::Node();
    if (!n) {
      if (required)
        r.fail(key(name), "required: the name of the " + std::string(name));
      return;
    }
    field = r.string(n, key(name), !required);
    if (!field.empty() && !is_dns_name(field)) {
      r.fail(key(name),
             "expected a Kubernetes object name (lower-case DNS-1123), got \"" + field + "\"");
    }
  };
  name_key("secret", out.secret, true);
  name_key("service", out.service, true);
  name_key("namespace", out.secret_namespace, false);
  name_key("webhookConfiguration", out.webhook_configuration, false);
  if (!node.IsMap())
    return out;
  if (const auto n = node["dnsNames"]) {
    out.dns_names = read_list(r, n, key("dnsNames"));
    for (size_t i = 0; i < out.dns_names.size(); ++i) {
      if (!is_dns_name(out.dns_names[i])) {
        r.fail(key("dnsNames") + "[" + std::to_string(i) + "]",
               "expected a lower-case DNS name, got \"" + out.dns_names[i] + "\"");
      }
    }
  }
  if (const auto n = node["ipAddresses"]) {
    out.ip_addresses = read_list(r, n, key("ipAddresses"));
    for (size_t i = 0; i < out.ip_addresses.size(); ++i) {
      if (!is_ip_address(out.ip_addresses[i])) {
        r.fail(key("ipAddresses") + "[" + std::to_string(i) + "]",
               "expected an IPv4 or IPv6 address, got \"" + out.ip_addresses[i] + "\"");
      }
    }
  }
  const auto int_key = [&](const char* name, int& field, int64_t min, int64_t max) {
    if (const auto n = node[name])
      field = static_cast<int>(r.integer(n, key(name), min, max));
  };
  int_key("caDays", out.ca_days, 1, kMaxDays);
  int_key("leafDays", out.leaf_days, 1, kMaxDays);
  int_key("renewBeforeDays", out.renew_before_days, 0, kMaxDays);
  int_key("checkIntervalSeconds", out.check_interval_seconds, 1, kMaxCheckSeconds);
  if (const auto n = node["directory"])
    out.directory = r.path(n, key("directory"));
  if (out.leaf_days > out.ca_days) {
    r.fail(key("leafDays"), "must not exceed " + key("caDays") + " (" +
                                std::to_string(out.ca_days) + "), got " +
                                std::to_string(out.leaf_days));
  }
  if (out.renew_before_days >= out.leaf_days) {
    r.fail(key("renewBeforeDays"), "must be below " + key("leafDays") + " (" +
                                       std::to_string(out.leaf_days) + "), got " +
                                       std::to_string(out.renew_before_days));
  }
  return out;
}

}  // namespace hami::config
