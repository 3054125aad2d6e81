// One container of a pod as the vendor logic sees it, and the admission
// changes it asks for. The binding fills a ContainerRef from hami_pod_view and
// replays a ContainerMutation into the host's mutation sink.
#ifndef HAMI_DEVICES_COMMON_CONTAINER_HPP
#define HAMI_DEVICES_COMMON_CONTAINER_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hami/objects.h"
#include "kv_list.hpp"

namespace hami::devices {

struct ContainerRef {
  std::string_view name;
  KvList limits;
  KvList requests;
  KvList env;

  // A resource as Kubernetes reads it for HAMi: limits first, then requests.
  std::optional<std::string_view> resource(std::string_view name_) const noexcept {
    if (auto v = limits.find(name_))
      return v;
    return requests.find(name_);
  }
  bool has_resource(std::string_view name_) const noexcept { return resource(name_).has_value(); }
};

// Throws InvalidInput when `index` is out of range.
ContainerRef container_at(const hami_pod_view& pod, std::size_t index);

struct ContainerMutation {
  bool uses_device = false;
  std::vector<std::pair<std::string, std::string>> limits;  // resource → quantity
  std::vector<std::pair<std::string, std::string>> env;     // appended in order
  std::optional<std::string> runtime_class;

  // Appends env `name=value` unless the container already defines `name`
  // (its own value wins; repeated admission adds nothing twice).
  void add_env(const ContainerRef& c, std::string name, std::string value) {
    if (c.env.contains(name))
      return;
    for (const auto& e : env) {
      if (e.first == name)
        return;
    }
    env.emplace_back(std::move(name), std::move(value));
  }
};

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_CONTAINER_HPP
