// NodeDevices: one node's devices as every device plugin decoded them from
// the node's annotations, with the C views fit needs. Decoded once per
// annotation change and shared immutably (shared_ptr<const>) between the
// ledger and concurrent filter calls.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hami/device.h"
#include "k8s/node.hpp"
#include "plugins/device_plugin_handle.hpp"

namespace hami::scheduling {

struct VendorDevices {
  VendorDevices() = default;
  // `abi` points into `abi_strings`: a copy would point into the original.
  VendorDevices(const VendorDevices&) = delete;
  VendorDevices& operator=(const VendorDevices&) = delete;
  VendorDevices(VendorDevices&&) noexcept = default;
  VendorDevices& operator=(VendorDevices&&) noexcept = default;

  bool registered = false;  // the node carries this vendor's registration
  std::string error;        // why the registration could not be read, if so
  // The vendor's devices whose type contains the vendor word (HAMi's
  // getNodeResources), in registration order, as the views fit hands to
  // the plugin. Their ids, types and modes are packed in `abi_strings`, the
  // only copy the node keeps: a fit walking the devices touches a few
  // adjacent cache lines, and a thousand 8-GPU nodes do not hold 16,000
  // small strings. (A vector: unlike a short std::string it never moves its
  // bytes, also not when the VendorDevices moves.)
  std::vector<hami_device> abi;
  std::vector<char> abi_strings;
  std::vector<host::PairScoreRecord> pair_records;
  std::vector<hami_pair_score> pairs;
  // Sums over the devices (node scoring reads them on every filter).
  int64_t total_count = 0;
  int64_t total_cores = 0;
  int64_t total_memory_mib = 0;

  size_t size() const { return abi.size(); }
  std::string_view id(size_t k) const { return {abi[k].id.ptr, abi[k].id.len}; }
  std::string_view type(size_t k) const { return {abi[k].type.ptr, abi[k].type.len}; }
  std::string_view mode(size_t k) const { return {abi[k].mode.ptr, abi[k].mode.len}; }
  std::string_view attributes(size_t k) const {
    return {abi[k].attributes.ptr, abi[k].attributes.len};
  }
  // Position of device `id`, or npos.
  size_t find(std::string_view id) const;
};

class NodeDevices {
  // Only decode() builds one; the key lets make_shared call the constructor.
  struct Key {
    explicit Key() = default;
  };

 public:
  static constexpr size_t npos = static_cast<size_t>(-1);

  explicit NodeDevices(Key) {}

  // Asks every device plugin to decode `node`. A vendor whose registration
  // is malformed keeps the devices `previous` had for it (HAMi keeps its
  // cache on a parse error) and records the error. PluginCallError of any
  // other status propagates.
  static std::shared_ptr<const NodeDevices> decode(
      std::span<const host::DevicePluginHandle> plugins, const k8s::NodeModel& node,
      const NodeDevices* previous);

  // A fingerprint of the annotations decoding depends on — all of them but
  // the node lock and the vendors' handshake annotations, which the host
  // itself rewrites — to skip re-decoding a node when only those changed
  // (and to reuse the cached decode for full Node objects that differ from
  // the cache only in them).
  static uint64_t fingerprint(std::span<const host::DevicePluginHandle> plugins,
                              const k8s::NodeModel& node);

  NodeDevices(const NodeDevices&) = delete;
  NodeDevices& operator=(const NodeDevices&) = delete;

  const std::string& name() const { return name_; }
  uint64_t source_fingerprint() const { return fingerprint_; }
  const std::vector<VendorDevices>& vendors() const { return vendors_; }
  // True when some vendor is registered with at least one device.
  bool registered() const { return registered_; }
  // True when every vendor read its registration (or had none): nothing was
  // taken over from the previous decode, so the result depends on the node
  // alone.
  bool clean() const;
  size_t device_count() const;

 private:
  std::string name_;
  uint64_t fingerprint_ = 0;
  bool registered_ = false;
  std::vector<VendorDevices> vendors_;
};

// The decode of one immutable Node model, kept by whoever keeps the model
// across calls (extender::NodeObjectCache keeps one per cached Node object).
// A full-Nodes filter decodes a node the cluster state does not hold, or
// holds with other annotations, on every call otherwise: a thousand plugin
// calls that parse the same registrations each time.
// Only a clean() decode is kept: one that fell back to a previous decode
// depends on more than the model. Safe to share between threads.
class NodeDevicesMemo {
 public:
  std::shared_ptr<const NodeDevices> get() const;
  // Keeps `devices` when clean(); another is left as it is.
  void keep(const std::shared_ptr<const NodeDevices>& devices) const;

 private:
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const NodeDevices> devices_;  // guarded by mutex_
};

}  // namespace hami::scheduling
