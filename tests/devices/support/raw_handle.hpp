// DevicePluginHandle-shaped access (interfaces §B) to a RawInstance: the same
// method names and result structs, implemented directly on the C vtable.
// Tests are written against this shape so they run unchanged on the host's
// hami::host::DevicePluginHandle.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "raw_device_plugin.hpp"

namespace hami::testing {

struct ContainerMutation {
  bool uses_device = false;
  std::vector<std::pair<std::string, std::string>> limits, env;
  std::optional<std::string> runtime_class;
};
struct RequestResult {
  hami_device_request request{};
  std::string warning;
};
struct DeviceRecord {
  std::string id, type, mode;
  std::uint32_t index = 0;
  std::int32_t count = 0;
  std::int64_t memory_mib = 0;
  std::int32_t cores = 0;
  std::int32_t numa = 0;
  std::uint32_t flags = 0;
};
struct PairScoreRecord {
  std::string from, to;
  std::int32_t score = 0;
};
struct NodeInventory {
  std::vector<DeviceRecord> devices;
  std::vector<PairScoreRecord> pair_scores;
};
struct AnnotationWrite {
  std::string key;
  std::optional<std::string> value;  // nullopt = remove
};
struct HealthResult {
  bool healthy = false;
  bool needs_update = false;
  std::vector<AnnotationWrite> writes;
};
struct FitResult {
  bool fits = false;
  std::size_t picks_len = 0;
  std::string reason;
};
struct AllocDevice {
  std::string id, type;
  std::int64_t memory_mib = 0;
  std::int32_t cores = 0;
};
using PodAllocation = std::vector<std::vector<AllocDevice>>;

// Non-OK statuses surface as RawCallError ("<plugin>.<function>: <message>").
class RawHandle {
 public:
  explicit RawHandle(const RawInstance& instance, std::string name)
      : instance_(instance), name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  hami_device_description describe() const;
  ContainerMutation mutate_container(const hami_pod_view& pod, std::size_t idx) const;
  RequestResult container_request(const hami_pod_view& pod, std::size_t idx) const;
  NodeInventory decode_node(const hami_node_view& node) const;
  HealthResult node_health(const hami_node_view& node, std::int64_t now) const;
  std::vector<AnnotationWrite> node_cleanup(const hami_node_view& node) const;
  FitResult fit(const hami_fit_input& in, std::span<hami_fit_pick> picks) const;
  std::string encode_allocation(std::span<const hami_container_alloc> containers) const;
  PodAllocation decode_allocation(std::string_view value) const;

 private:
  void check(hami_status s, const char* fn, const char* buf) const;
  const RawInstance& instance_;
  std::string name_;
};

}  // namespace hami::testing
