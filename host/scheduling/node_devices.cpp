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

std::string_view text(hami_str s) {
  return {s.ptr, s.len};
}

// Makes `devices` (views into strings owned elsewhere: a plugin's records,
// another node's decode) the vendor's own: their strings packed into
// abi_strings, the views pointing there. Also builds the sums and the pair
// views once pair_records is final.
void set_devices(VendorDevices& v, std::span<const hami_device> devices) {
  size_t bytes = 0;
  for (const hami_device& d : devices)
    bytes += d.id.len + d.type.len + d.mode.len + d.attributes.len;
  v.abi_strings.clear();
  v.abi_strings.reserve(bytes);
  for (const hami_device& d : devices) {
    for (const hami_str s : {d.id, d.type, d.mode, d.attributes})
      v.abi_strings.insert(v.abi_strings.end(), s.ptr, s.ptr + s.len);
  }
  v.abi.assign(devices.begin(), devices.end());
  const char* cursor = v.abi_strings.data();
  const auto take = [&cursor](size_t n) {
    const hami_str out{cursor, n};
    cursor += n;
    return out;
  };
  v.total_count = v.total_cores = v.total_memory_mib = 0;
  for (hami_device& d : v.abi) {
    d.id = take(d.id.len);
    d.type = take(d.type.len);
    d.mode = take(d.mode.len);
    d.attributes = take(d.attributes.len);
    v.total_count += d.count;
    v.total_cores += d.cores;
    v.total_memory_mib += d.memory_mib;
  }
  v.pairs.clear();
  v.pairs.reserve(v.pair_records.size());
  for (const host::PairScoreRecord& p : v.pair_records) {
    v.pairs.push_back({view(p.from), view(p.to), p.score});
  }
}

hami_device device_view(const host::DeviceRecord& r) {
  hami_device d{};
  d.struct_size = sizeof(hami_device);
  d.id = view(r.id);
  d.type = view(r.type);
  d.mode = view(r.mode);
  d.index = r.index;
  d.count = r.count;
  d.memory_mib = r.memory_mib;
  d.cores = r.cores;
  d.numa = r.numa;
  d.flags = r.flags;
  d.attributes = view(r.attributes);
  return d;
}

}  // namespace

size_t VendorDevices::find(std::string_view id) const {
  for (size_t i = 0; i < abi.size(); ++i) {
    if (text(abi[i].id) == id)
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
      vendor.registered = true;
      const std::string& word = plugins[v].description().vendor;
      std::vector<hami_device> devices;
      devices.reserve(decoded->devices.size());
      for (const host::DeviceRecord& r : decoded->devices) {
        if (contains_ignore_case(r.type, word))
          devices.push_back(device_view(r));
      }
      vendor.pair_records = std::move(decoded->pair_scores);
      set_devices(vendor, devices);
    } catch (const host::PluginCallError& e) {
      if (e.status() != HAMI_INVALID_ARGUMENT)
        throw;
      vendor.error = e.what();
      if (previous != nullptr && v < previous->vendors_.size()) {
        const VendorDevices& old = previous->vendors_[v];
        vendor.registered = old.registered;
        vendor.pair_records = old.pair_records;
        set_devices(vendor, old.abi);
      }
    }
    if (vendor.registered && !vendor.abi.empty())
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
    n += v.abi.size();
  return n;
}

}  // namespace hami::scheduling
