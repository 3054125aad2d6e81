#include "amd_admission.hpp"

#include "amd_requests.hpp"

namespace hami::devices::amd {

ContainerMutation mutate_container(const AmdConfig& config, const ContainerRef& c) {
  ContainerMutation m;
  m.uses_device = c.limits.contains(config.count_resource) ||
                  c.limits.contains(config.memory_resource) ||
                  c.limits.contains(config.cores_resource);
  if (m.uses_device) {
    if (const auto cores = c.limits.find(config.cores_resource))
      checked_core_percent(config, *cores);
  }
  return m;
}

}  // namespace hami::devices::amd
