#include "container.hpp"

#include "errors.hpp"
#include "hami/plugin.hpp"

namespace hami::devices {

ContainerRef container_at(const hami_pod_view& pod, std::size_t index) {
  if (index >= pod.containers_len || pod.containers == nullptr) {
    throw InvalidInput("container index " + std::to_string(index) + " out of range (pod has " +
                       std::to_string(pod.containers_len) + " containers)");
  }
  const hami_container_view& c = pod.containers[index];
  return ContainerRef{to_sv(c.name), KvList(c.limits, c.limits_len),
                      KvList(c.requests, c.requests_len), KvList(c.env, c.env_len)};
}

}  // namespace hami::devices
