// The members ABI 1.1 appended to the device contract (device.h "Since
// 1.1"), checked for plugins that report minor >= 1: a known cores_unit,
// only known vendor_flags bits, further allocation annotations that are
// distinct and not the allocation annotations themselves, partition metric
// families the host can export (Prometheus names, a help text, labels that
// do not collide with the device labels the host puts first) and a
// describe_partitions to feed them.
#include <cstddef>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "conformance/check_context.hpp"
#include "conformance/device_instance.hpp"
#include "observability/metric_family.hpp"

namespace hami::conformance {
namespace {

// The labels the host puts before a family's own (device.h,
// hami_metric_family), in the current and in the legacy form.
constexpr const char* kHostDeviceLabels[] = {"node",   "device_uuid", "device_index",
                                             "nodeid", "deviceuuid",  "deviceidx"};
constexpr const char* kHostDeviceLabelList =
    "node, device_uuid, device_index, nodeid, deviceuuid, deviceidx";

bool has_describe_partitions(const hami_device_vtable& vt) {
  return vt.struct_size >= offsetof(hami_device_vtable, describe_partitions) + sizeof(void*) &&
         vt.describe_partitions != nullptr;
}

// The text of `s`; records a problem for {NULL, n > 0}.
std::string text(hami_str s, const std::string& what, CheckContext& c) {
  if (s.ptr == nullptr && s.len != 0) {
    c.fail("describe: " + what + " is NULL with length " + std::to_string(s.len));
    return {};
  }
  return PluginUnderTest::text(s);
}

// Whether the array behind `data`/`len` may be read; false (after recording
// it) when it is NULL with a length.
template <class T>
bool array_ok(const T* data, std::size_t len, const std::string& what, CheckContext& c) {
  return c.expect(data != nullptr || len == 0,
                  "describe: " + what + " is NULL with length " + std::to_string(len));
}

void check_cores_and_flags(const hami_device_description& d, uint16_t minor, CheckContext& c) {
  c.expect(d.cores_unit == HAMI_CORES_PERCENT || d.cores_unit == HAMI_CORES_COUNT,
           "describe: cores_unit " + std::to_string(d.cores_unit) +
               " is neither HAMI_CORES_PERCENT (0) nor HAMI_CORES_COUNT (1)");
  // HAMI_VENDOR_READS_PLACED came with 1.2.
  const uint32_t known = minor >= 2 ? (HAMI_VENDOR_MULTI_PICK | HAMI_VENDOR_READS_PLACED)
                                    : uint32_t{HAMI_VENDOR_MULTI_PICK};
  const uint32_t unknown = d.vendor_flags & ~known;
  if (unknown != 0) {
    char bits[16];
    std::snprintf(bits, sizeof bits, "0x%x", unknown);
    c.fail("describe: vendor_flags has unknown bits " + std::string(bits) +
           (minor >= 2 ? " (known: HAMI_VENDOR_MULTI_PICK 0x1, HAMI_VENDOR_READS_PLACED 0x2)"
                       : " (known: HAMI_VENDOR_MULTI_PICK 0x1)"));
  }
}

void check_node_lock(const hami_device_description& d, uint16_t minor, CheckContext& c) {
  // HAMI_NODE_LOCK_OWN came with 1.2 (device-abi-1-2 checks its members).
  if (minor >= 2) {
    c.expect(d.node_lock == HAMI_NODE_LOCK_SHARED || d.node_lock == HAMI_NODE_LOCK_NONE ||
                 d.node_lock == HAMI_NODE_LOCK_OWN,
             "describe: node_lock " + std::to_string(d.node_lock) +
                 " is none of HAMI_NODE_LOCK_SHARED (0), HAMI_NODE_LOCK_NONE (1), "
                 "HAMI_NODE_LOCK_OWN (2)");
    return;
  }
  c.expect(d.node_lock == HAMI_NODE_LOCK_SHARED || d.node_lock == HAMI_NODE_LOCK_NONE,
           "describe: node_lock " + std::to_string(d.node_lock) +
               " is neither HAMI_NODE_LOCK_SHARED (0) nor HAMI_NODE_LOCK_NONE (1)");
}

void check_allocation_annotations(const hami_device_description& d, CheckContext& c) {
  if (!array_ok(d.allocation_annotations, d.allocation_annotations_len, "allocation_annotations",
                c)) {
    return;
  }
  const std::string to_allocate = PluginUnderTest::text(d.to_allocate_annotation);
  const std::string allocated = PluginUnderTest::text(d.allocated_annotation);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < d.allocation_annotations_len; ++i) {
    const std::string where = "allocation_annotations[" + std::to_string(i) + "]";
    const std::string key = text(d.allocation_annotations[i], where, c);
    if (key.empty()) {
      c.expect(d.allocation_annotations[i].len != 0, "describe: " + where + " is empty");
      continue;
    }
    const std::string named = "describe: " + where + " '" + key + "'";
    c.expect(seen.insert(key).second, named + " repeats an earlier entry");
    c.expect(key != to_allocate, named + " is the to-allocate annotation");
    c.expect(key != allocated, named + " is the allocated annotation");
  }
}

bool host_device_label(const std::string& label) {
  for (const char* host : kHostDeviceLabels) {
    if (label == host) {
      return true;
    }
  }
  return false;
}

void check_family(const hami_metric_family& f, std::size_t i, std::set<std::string>& names,
                  CheckContext& c) {
  const std::string where = "partition_metrics[" + std::to_string(i) + "]";
  const std::string name = text(f.name, where + " name", c);
  const std::string named = "describe: " + where + " '" + name + "'";
  if (c.expect(
          observability::valid_metric_name(name),
          "describe: " + where + " name '" + name + "' is not a valid Prometheus metric name")) {
    c.expect(names.insert(name).second, named + " repeats an earlier family's name");
  }
  c.expect(!text(f.help, where + " help", c).empty(), named + " has an empty help");
  if (!array_ok(f.labels, f.labels_len, where + " labels", c)) {
    return;
  }
  std::set<std::string> labels;
  for (std::size_t k = 0; k < f.labels_len; ++k) {
    const std::string label = text(f.labels[k], where + " labels[" + std::to_string(k) + "]", c);
    if (!c.expect(observability::valid_label_name(label),
                  named + " label '" + label + "' is not a valid Prometheus label name")) {
      continue;
    }
    c.expect(labels.insert(label).second, named + " label '" + label + "' appears twice");
    c.expect(!host_device_label(label), named + " label '" + label +
                                            "' collides with a device label the host adds (" +
                                            kHostDeviceLabelList + ")");
  }
}

void check_partition_metrics(const hami_device_description& d, const hami_device_vtable& vt,
                             CheckContext& c) {
  if (!array_ok(d.partition_metrics, d.partition_metrics_len, "partition_metrics", c)) {
    return;
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < d.partition_metrics_len; ++i) {
    check_family(d.partition_metrics[i], i, names, c);
  }
  c.expect(d.partition_metrics_len == 0 || has_describe_partitions(vt),
           "partition_metrics lists " + std::to_string(d.partition_metrics_len) +
               " families but describe_partitions is NULL");
}

void device_abi_1_1(const PluginUnderTest& p, CheckContext& c) {
  std::optional<DeviceInstance> inst;
  hami_device_description d{};
  if (!describe_for_minor(p, c, 1, inst, d))
    return;
  const hami_device_vtable& vt = p.vtable<hami_device_vtable>();
  check_cores_and_flags(d, p.info().abi_minor, c);
  check_node_lock(d, p.info().abi_minor, c);
  check_allocation_annotations(d, c);
  check_partition_metrics(d, vt, c);
}

const Check kDevice11[] = {
    {"device-abi-1-1",
     "the 1.1 description members are valid: cores_unit, vendor_flags, node_lock, "
     "allocation_annotations, partition_metrics (minor >= 1)",
     HAMI_KIND_DEVICE, &device_abi_1_1},
};

}  // namespace

std::span<const Check> device_1_1_checks() {
  return kDevice11;
}

}  // namespace hami::conformance
