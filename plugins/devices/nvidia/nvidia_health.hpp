// NVIDIA node health (HAMi §3.3): the generic handshake plus per-node memory
// of the last seen allocatable GPU count and register annotation, so that a
// device-plugin restart or a changed registration makes the host re-read the
// node's inventory.
//
// Threading: the memory is guarded by a mutex; check() and forget() may be
// called concurrently.
#ifndef HAMI_DEVICES_NVIDIA_HEALTH_HPP
#define HAMI_DEVICES_NVIDIA_HEALTH_HPP

#include <cstddef>
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
  // The register annotation as its length and std::hash: a thousand nodes'
  // texts of 8 GPUs each took 1.3 MB. Two different texts of one length
  // with one hash would let a change go unnoticed until the next one.
  struct Digest {
    std::size_t size = 0;
    std::size_t hash = 0;
    friend bool operator==(const Digest&, const Digest&) = default;
  };
  static Digest digest(std::string_view text);
  struct Memory {
    std::int64_t reported = 0;
    Digest register_annotation;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Memory, std::less<>> nodes_;
};

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_HEALTH_HPP
