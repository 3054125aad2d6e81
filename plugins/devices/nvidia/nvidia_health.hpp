// NVIDIA node health (HAMi §3.3): the generic handshake plus per-node memory
// of the last seen allocatable GPU count and register annotation, so that a
// device-plugin restart or a changed registration makes the host re-read the
// node's inventory.
//
// Threading: the memory is guarded by a mutex; check() and forget() may be
// called concurrently.
#ifndef HAMI_DEVICES_NVIDIA_HEALTH_HPP
#define HAMI_DEVICES_NVIDIA_HEALTH_HPP

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "handshake.hpp"

namespace hami::devices::nvidia {

struct NodeFacts {
  std::string_view name;
  std::optional<std::string_view> handshake;  // hami.io/node-handshake
  std::optional<std::string_view> register_annotation;
  std::int64_t allocatable_count = 0;  // status.allocatable[<count resource>]
};

class HealthTracker {
 public:
  // `result.stamp`, when set, is the handshake value the host must write.
  HandshakeResult check(const NodeFacts& node, std::int64_t now_unix);

  // Forgets the node (cleanup, deletion).
  void forget(std::string_view node_name);

  std::size_t tracked_nodes() const;

 private:
  struct Memory {
    std::int64_t reported = 0;
    std::string register_annotation;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Memory, std::less<>> nodes_;
};

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_HEALTH_HPP
