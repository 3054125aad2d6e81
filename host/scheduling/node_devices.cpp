#include "scheduling/node_devices.hpp"

#include <algorithm>
#include <cctype>

#include "cluster/node_lock.hpp"
#include "platform/text_hash.hpp"
#include "plugins/plugin_errors.hpp"

namespace hami::scheduling {

namespace {

bool contains_ignore_case(std::string_view haystack, std::string_view needle) {
  if (needle.empty())
    return true;
  const auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                              [](char a, char b) {
                                return std::tolower(static_cast<unsigned char>(a)) ==
                                       std::tolower(static_cast<unsigned char>(b));
                              });
  return it != haystack.end();
}

hami_str view(const std::string& s) {
  return {s.data(), s.size()};
}

// Builds the C views once the record vectors are final.
void build_views(VendorDevices& v) {
  size_t bytes = 0;
  for (const host::DeviceRecord& r : v.records)
    bytes += r.id.size() + r.type.size() + r.mode.size();
  v.abi_strings.clear();
  v.abi_strings.reserve(bytes);
  for (const host::DeviceRecord& r : v.records) {
    v.abi_strings.insert(v.abi_strings.end(), r.id.begin(), r.id.end());
    v.abi_strings.insert(v.abi_strings.end(), r.type.begin(), r.type.end());
    v.abi_strings.insert(v.abi_strings.end(), r.mode.begin(), r.mode.end());
  }
  v.abi.clear();
  v.abi.reserve(v.records.size());
  const char* cursor = v.abi_strings.data();
  const auto take = [&cursor](size_t n) {
    const hami_str out{cursor, n};
    cursor += n;
    return out;
  };
  for (const host::DeviceRecord& r : v.records) {
    hami_device d{};
    d.struct_size = sizeof(hami_device);
    d.id = take(r.id.size());
    d.type = take(r.type.size());
    d.mode = take(r.mode.size());
    d.index = r.index;
    d.count = r.count;
    d.memory_mib = r.memory_mib;
    d.cores = r.cores;
    d.numa = r.numa;
    d.flags = r.flags;
    v.abi.push_back(d);
  }
  v.total_count = v.total_cores = v.total_memory_mib = 0;
  for (const host::DeviceRecord& r : v.records) {
    v.total_count += r.count;
    v.total_cores += r.cores;
    v.total_memory_mib += r.memory_mib;
  }
  v.pairs.clear();
  v.pairs.reserve(v.pair_records.size());
  for (const host::PairScoreRecord& p : v.pair_records) {
    v.pairs.push_back({view(p.from), view(p.to), p.score});
  }
}

}  // namespace

size_t VendorDevices::find(std::string_view id) const {
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].id == id)
      return i;
  }
  return NodeDevices::npos;
}

uint64_t NodeDevices::fingerprint(std::span<const host::DevicePluginHandle> plugins,
                                  const k8s::NodeModel& node) {
  // The model hashed each annotation when it was built: only the keys are
  // read here, to leave out the ones the host and the device plugins
  // rewrite on their own.
  uint64_t h = 0;
  const std::span<const hami_kv> annotations = node.annotations();
  const std::span<const uint64_t> hashes = node.annotation_hashes();
  for (size_t i = 0; i < annotations.size(); ++i) {
    const std::string_view key(annotations[i].key.ptr, annotations[i].key.len);
    if (key == cluster::kNodeLockAnnotation)
      continue;
    const auto handshake = [key](const host::DevicePluginHandle& p) {
      return !p.description().handshake_annotation.empty() &&
             key == p.description().handshake_annotation;
    };
    if (std::any_of(plugins.begin(), plugins.end(), handshake))
      continue;
    platform::hash_append(h, hashes[i]);
  }
  return h;
}

std::shared_ptr<const NodeDevices> NodeDevices::decode(
    std::span<const host::DevicePluginHandle> plugins, const k8s::NodeModel& node,
    const NodeDevices* previous) {
  auto out = std::make_shared<NodeDevices>(Key{});
  out->name_ = std::string(node.name());
  out->fingerprint_ = fingerprint(plugins, node);
  out->vendors_.resize(plugins.size());
  for (size_t v = 0; v < plugins.size(); ++v) {
    VendorDevices& vendor = out->vendors_[v];
    try {
      std::optional<host::NodeInventory> decoded =
          plugins[v].decode_node_if_registered(node.view());
      if (!decoded)
        continue;
      host::NodeInventory& inventory = *decoded;
      vendor.registered = true;
      const std::string& word = plugins[v].description().vendor;
      for (host::DeviceRecord& r : inventory.devices) {
        if (contains_ignore_case(r.type, word))
          vendor.records.push_back(std::move(r));
      }
      vendor.pair_records = std::move(inventory.pair_scores);
    } catch (const host::PluginCallError& e) {
      if (e.status() != HAMI_INVALID_ARGUMENT)
        throw;
      vendor.error = e.what();
      if (previous != nullptr && v < previous->vendors_.size()) {
        const VendorDevices& old = previous->vendors_[v];
        vendor.registered = old.registered;
        vendor.records = old.records;
        vendor.pair_records = old.pair_records;
      }
    }
    build_views(vendor);
    if (vendor.registered && !vendor.records.empty())
      out->registered_ = true;
  }
  return out;
}

bool NodeDevices::clean() const {
  for (const VendorDevices& v : vendors_) {
    if (!v.error.empty())
      return false;
  }
  return true;
}

std::shared_ptr<const NodeDevices> NodeDevicesMemo::get() const {
  const std::lock_guard lock(mutex_);
  return devices_;
}

void NodeDevicesMemo::keep(const std::shared_ptr<const NodeDevices>& devices) const {
  if (!devices || !devices->clean())
    return;
  const std::lock_guard lock(mutex_);
  devices_ = devices;
}

size_t NodeDevices::device_count() const {
  size_t n = 0;
  for (const VendorDevices& v : vendors_)
    n += v.records.size();
  return n;
}

}  // namespace hami::scheduling
