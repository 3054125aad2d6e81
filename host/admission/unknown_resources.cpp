#include "admission/unknown_resources.hpp"

#include <algorithm>
#include <string_view>

#include "hami/plugin.hpp"

namespace hami::admission {
namespace {

// "nvidia.com" of "nvidia.com/gpu"; empty without a '/'.
std::string_view domain_of(std::string_view resource) {
  const size_t slash = resource.find('/');
  return slash == std::string_view::npos ? std::string_view{} : resource.substr(0, slash);
}

// The resource names the device plugins describe, in plugin order.
std::vector<std::string> described_resources(std::span<const host::DevicePluginHandle> devices) {
  std::vector<std::string> out;
  for (const host::DevicePluginHandle& device : devices) {
    const host::DeviceDescription& d = device.description();
    for (const std::string* name :
         {&d.count_resource, &d.memory_resource, &d.memory_percent_resource, &d.cores_resource,
          &d.priority_resource}) {
      if (!domain_of(*name).empty() && std::find(out.begin(), out.end(), *name) == out.end())
        out.push_back(*name);
    }
  }
  return out;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string known_in(const std::vector<std::string>& known, std::string_view domain) {
  std::string out;
  for (const std::string& name : known) {
    if (domain_of(name) == domain)
      out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

}  // namespace

std::vector<std::string> unknown_resource_warnings(
    std::span<const host::DevicePluginHandle> devices, const hami_pod_view& pod) {
  const std::vector<std::string> known = described_resources(devices);
  std::vector<std::string> warnings;
  for (size_t c = 0; c < pod.containers_len; ++c) {
    const hami_container_view& container = pod.containers[c];
    std::vector<std::string> seen;
    const auto check = [&](const hami_kv* kv, size_t len) {
      for (size_t i = 0; i < len; ++i) {
        const std::string_view name = to_sv(kv[i].key);
        const std::string_view domain = domain_of(name);
        if (domain.empty() || contains(known, name) || contains(seen, name))
          continue;
        const std::string vendor_known = known_in(known, domain);
        if (vendor_known.empty())
          continue;
        seen.emplace_back(name);
        warnings.push_back("container " + std::string(to_sv(container.name)) + ": " +
                           std::string(name) +
                           " is not a resource of this scheduler's device plugins; the " +
                           std::string(domain) + " resources they read: " + vendor_known);
      }
    };
    check(container.limits, container.limits_len);
    check(container.requests, container.requests_len);
  }
  return warnings;
}

}  // namespace hami::admission
