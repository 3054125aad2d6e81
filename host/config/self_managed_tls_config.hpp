// Reading and checking tls.selfManaged (config/host_config.hpp
// SelfManagedTlsConfig). Internal to hami_config.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "config/host_config.hpp"
#include "config/yaml_reader.hpp"

namespace hami::config {

// The section at `path` ("tls.selfManaged"); throws ConfigError naming the
// key at fault: unknown keys, secret or service missing or not a DNS-1123
// name, a dnsNames entry that is not a lower-case DNS name, an ipAddresses
// entry that is not an IPv4/IPv6 address, leafDays above caDays,
// renewBeforeDays not below leafDays.
SelfManagedTlsConfig read_self_managed_tls(const YamlReader& r, const YAML::Node& node,
                                           const std::string& path);

// A DNS-1123 subdomain in lower case: labels of [a-z0-9-], not starting or
// ending with '-', dot-separated, at most 253 characters.
bool is_dns_name(std::string_view name);

}  // namespace hami::config
