#include "plugins/device_plugin_handle.hpp"

#include <algorithm>
#include <stdexcept>

#include "hami/struct_sizes.hpp"
#include "plugins/placed_view.hpp"
#include "plugins/plugin_call.hpp"

namespace hami::host {
namespace {

// Sink contexts: the host-owned output plus the call's problem collector.
template <class Out>
struct SinkContext {
  Out* out;
  CallProblems* problems;
};

template <class Out>
SinkContext<Out>& context(void* ctx) {
  return *static_cast<SinkContext<Out>*>(ctx);
}

void append_text(void* ctx, const char* bytes, size_t len) noexcept {
  auto& c = context<std::string>(ctx);
  c.problems->run([&] { c.problems->append(*c.out, bytes, len); });
}

hami_sink text_sink(SinkContext<std::string>& ctx) {
  return hami_sink{&ctx, &append_text};
}

void on_set_limit(void* ctx, hami_str resource, hami_str quantity) noexcept {
  auto& c = context<ContainerMutation>(ctx);
  c.problems->run([&] {
    c.out->limits.emplace_back(c.problems->text(resource, "set_limit resource"),
                               c.problems->text(quantity, "set_limit quantity"));
  });
}

void on_add_env(void* ctx, hami_str name, hami_str value) noexcept {
  auto& c = context<ContainerMutation>(ctx);
  c.problems->run([&] {
    c.out->env.emplace_back(c.problems->text(name, "add_env name"),
                            c.problems->text(value, "add_env value"));
  });
}

void on_set_request(void* ctx, hami_str resource, hami_str quantity) noexcept {
  auto& c = context<ContainerMutation>(ctx);
  c.problems->run([&] {
    c.out->requests.emplace_back(c.problems->text(resource, "set_request resource"),
                                 c.problems->text(quantity, "set_request quantity"));
  });
}

void on_set_pod_annotation(void* ctx, hami_str key, hami_str value) noexcept {
  auto& c = context<ContainerMutation>(ctx);
  c.problems->run([&] {
    c.out->pod_annotations.emplace_back(c.problems->text(key, "set_pod_annotation key"),
                                        c.problems->text(value, "set_pod_annotation value"));
  });
}

void on_set_runtime_class(void* ctx, hami_str name) noexcept {
  auto& c = context<ContainerMutation>(ctx);
  c.problems->run([&] { c.out->runtime_class = c.problems->text(name, "set_runtime_class name"); });
}

void on_device(void* ctx, const hami_device* device) noexcept {
  auto& c = context<NodeInventory>(ctx);
  c.problems->run([&] {
    if (device == nullptr) {
      c.problems->invalid("device sink got a NULL device");
      return;
    }
    if (device->struct_size < v1_0_size<hami_device>) {
      c.problems->invalid("hami_device.struct_size " + std::to_string(device->struct_size) +
                          " is smaller than ABI 1.0's " + std::to_string(v1_0_size<hami_device>));
      return;
    }
    c.out->devices.push_back(DeviceRecord{
        c.problems->text(device->id, "device id"), c.problems->text(device->type, "device type"),
        c.problems->text(device->mode, "device mode"), device->index, device->count,
        device->memory_mib, device->cores, device->numa, device->flags, std::string()});
    if (HAMI_HAS_MEMBER(device, hami_device, attributes)) {
      c.out->devices.back().attributes = c.problems->text(device->attributes, "device attributes");
    }
  });
}

void on_pair_score(void* ctx, hami_str from, hami_str to, int32_t score) noexcept {
  auto& c = context<NodeInventory>(ctx);
  c.problems->run([&] {
    c.out->pair_scores.push_back(PairScoreRecord{c.problems->text(from, "pair_score from_id"),
                                                 c.problems->text(to, "pair_score to_id"), score});
  });
}

void on_annotation_set(void* ctx, hami_str key, hami_str value) noexcept {
  auto& c = context<std::vector<AnnotationWrite>>(ctx);
  c.problems->run([&] {
    c.out->push_back(AnnotationWrite{c.problems->text(key, "annotation key"),
                                     c.problems->text(value, "annotation value")});
  });
}

void on_annotation_remove(void* ctx, hami_str key) noexcept {
  auto& c = context<std::vector<AnnotationWrite>>(ctx);
  c.problems->run([&] {
    c.out->push_back(AnnotationWrite{c.problems->text(key, "annotation key"), std::nullopt});
  });
}

hami_annotation_sink annotation_sink(SinkContext<std::vector<AnnotationWrite>>& ctx) {
  return hami_annotation_sink{static_cast<uint32_t>(sizeof(hami_annotation_sink)), &ctx,
                              &on_annotation_set, &on_annotation_remove};
}

void on_alloc_container(void* ctx) noexcept {
  auto& c = context<PodAllocation>(ctx);
  c.problems->run([&] { c.out->emplace_back(); });
}

void on_alloc_device(void* ctx, const hami_alloc_device* device) noexcept {
  auto& c = context<PodAllocation>(ctx);
  c.problems->run([&] {
    if (device == nullptr) {
      c.problems->invalid("allocation sink got a NULL device");
      return;
    }
    if (device->struct_size < v1_0_size<hami_alloc_device>) {
      c.problems->invalid("hami_alloc_device.struct_size " + std::to_string(device->struct_size) +
                          " is smaller than ABI 1.0's " +
                          std::to_string(v1_0_size<hami_alloc_device>));
      return;
    }
    if (c.out->empty()) {
      c.problems->invalid("a device was reported before any container segment");
      return;
    }
    c.out->back().push_back(AllocDevice{c.problems->text(device->id, "device id"),
                                        c.problems->text(device->type, "device type"),
                                        device->memory_mib, device->cores, 0, std::string()});
  });
}

void on_placed_container(void* ctx) noexcept {
  auto& c = context<PodAllocation>(ctx);
  c.problems->run([&] { c.out->emplace_back(); });
}

void on_placed_device(void* ctx, const hami_placed_device* device) noexcept {
  auto& c = context<PodAllocation>(ctx);
  c.problems->run([&] {
    if (device == nullptr) {
      c.problems->invalid("placed sink got a NULL device");
      return;
    }
    if (c.out->empty()) {
      c.problems->invalid("a device was reported before any container segment");
      return;
    }
    c.out->back().push_back(AllocDevice{
        c.problems->text(device->id, "device id"), c.problems->text(device->type, "device type"),
        device->memory_mib, device->cores, 0, c.problems->text(device->data, "device data")});
  });
}

struct PickDataContext {
  std::vector<std::string>* data;
  size_t cap;
  CallProblems* problems;
};

void on_pick_data(void* ctx, size_t pick, hami_str data) noexcept {
  auto& c = *static_cast<PickDataContext*>(ctx);
  c.problems->run([&] {
    if (pick >= c.cap) {
      c.problems->invalid("set_pick_data names pick " + std::to_string(pick) +
                          " but picks_cap is " + std::to_string(c.cap));
      return;
    }
    if (c.data->size() < c.cap)
      c.data->resize(c.cap);
    (*c.data)[pick] = c.problems->text(data, "pick data");
  });
}

struct PartitionContext {
  std::vector<PartitionRecord>* out;
  const std::vector<PartitionMetric>* families;
  CallProblems* problems;
};

void on_partition(void* ctx, size_t family, hami_str device_id, const hami_str* values,
                  size_t values_len) noexcept {
  auto& c = *static_cast<PartitionContext*>(ctx);
  c.problems->run([&] {
    if (family >= c.families->size()) {
      c.problems->invalid("partition names family " + std::to_string(family) + " of " +
                          std::to_string(c.families->size()));
      return;
    }
    const size_t want = (*c.families)[family].labels.size();
    if (values_len != want || (values_len != 0 && values == nullptr)) {
      c.problems->invalid("partition of family " + std::to_string(family) + " has " +
                          std::to_string(values_len) + " values for " + std::to_string(want) +
                          " labels");
      return;
    }
    PartitionRecord r{family, c.problems->text(device_id, "partition device id"), {}};
    for (size_t i = 0; i < values_len; ++i)
      r.values.push_back(c.problems->text(values[i], "partition label value"));
    c.out->push_back(std::move(r));
  });
}

void require_container(const hami_pod_view& pod, size_t idx, const char* function) {
  if (idx >= pod.containers_len) {
    throw std::invalid_argument(std::string(function) + ": container index " + std::to_string(idx) +
                                " out of range (pod has " + std::to_string(pod.containers_len) +
                                " containers)");
  }
}

}  // namespace

DevicePluginHandle::DevicePluginHandle(PluginInstance instance, const hami_device_vtable& vtable)
    : instance_(std::move(instance)), vtable_(vtable) {
  hami_device_description out{};
  out.struct_size = static_cast<uint32_t>(sizeof out);
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "describe", err,
                [&] { return vtable_.describe(instance_.get(), &out, err.view()); });
  }
  CallProblems problems;
  description_ =
      DeviceDescription{problems.text(out.vendor, "vendor"),
                        problems.text(out.count_resource, "count_resource"),
                        problems.text(out.memory_resource, "memory_resource"),
                        problems.text(out.memory_percent_resource, "memory_percent_resource"),
                        problems.text(out.cores_resource, "cores_resource"),
                        problems.text(out.priority_resource, "priority_resource"),
                        problems.text(out.register_annotation, "register_annotation"),
                        problems.text(out.handshake_annotation, "handshake_annotation"),
                        problems.text(out.to_allocate_annotation, "to_allocate_annotation"),
                        problems.text(out.allocated_annotation, "allocated_annotation"),
                        out.memory_factor,
                        HAMI_CORES_PERCENT,
                        0,
                        {},
                        {},
                        HAMI_NODE_LOCK_SHARED,
                        {},
                        0};
  read_description_1_1(out, problems);
  read_description_1_2(out, problems);
  problems.report(instance_, "describe");
  if (description_.vendor.empty() || description_.count_resource.empty()) {
    throw_invalid_output(instance_, "describe", "vendor and count_resource must not be empty");
  }
  if (description_.memory_factor < 1) {
    throw_invalid_output(
        instance_, "describe",
        "memory_factor " + std::to_string(description_.memory_factor) + " is below 1");
  }
}

void DevicePluginHandle::read_description_1_1(const hami_device_description& out,
                                              CallProblems& problems) {
  // `out` is the host's own zeroed, full-size struct: members a 1.0 plugin
  // does not know stay zero, which reads as the 1.0 behaviour.
  DeviceDescription& d = description_;
  d.cores_unit = out.cores_unit;
  d.vendor_flags = out.vendor_flags;
  d.node_lock = out.node_lock;
  if (out.allocation_annotations_len != 0 && out.allocation_annotations == nullptr) {
    problems.invalid("allocation_annotations is NULL with a length");
  } else {
    for (size_t i = 0; i < out.allocation_annotations_len; ++i) {
      d.allocation_annotations.push_back(
          problems.text(out.allocation_annotations[i], "allocation_annotations entry"));
    }
  }
  if (out.partition_metrics_len != 0 && out.partition_metrics == nullptr) {
    problems.invalid("partition_metrics is NULL with a length");
  } else {
    for (size_t i = 0; i < out.partition_metrics_len; ++i) {
      const hami_metric_family& f = out.partition_metrics[i];
      PartitionMetric m{problems.text(f.name, "partition metric name"),
                        problems.text(f.help, "partition metric help"),
                        {},
                        f.legacy != 0};
      if (f.labels_len != 0 && f.labels == nullptr) {
        problems.invalid("partition metric labels are NULL with a length");
        continue;
      }
      for (size_t k = 0; k < f.labels_len; ++k)
        m.labels.push_back(problems.text(f.labels[k], "partition metric label"));
      d.partition_metrics.push_back(std::move(m));
    }
  }
  if (d.cores_unit != HAMI_CORES_PERCENT && d.cores_unit != HAMI_CORES_COUNT) {
    problems.invalid("cores_unit " + std::to_string(d.cores_unit) + " is not a HAMI_CORES_ value");
  }
  if (d.node_lock != HAMI_NODE_LOCK_SHARED && d.node_lock != HAMI_NODE_LOCK_NONE &&
      d.node_lock != HAMI_NODE_LOCK_OWN) {
    problems.invalid("node_lock " + std::to_string(d.node_lock) +
                     " is not a HAMI_NODE_LOCK_ value");
  }
  for (const std::string& key : d.allocation_annotations) {
    if (key.empty() || key == d.to_allocate_annotation || key == d.allocated_annotation)
      problems.invalid("allocation_annotations entry '" + key +
                       "' is empty or one of the allocation annotations");
  }
}

ContainerMutation DevicePluginHandle::mutate_container(const hami_pod_view& pod, size_t idx) const {
  require_container(pod, idx, "mutate_container");
  ContainerMutation result;
  CallProblems problems;
  SinkContext<ContainerMutation> ctx{&result, &problems};
  const hami_container_mutation_sink sink{
      static_cast<uint32_t>(sizeof(hami_container_mutation_sink)),
      &ctx,
      &on_set_limit,
      &on_add_env,
      &on_set_runtime_class,
      &on_set_request,
      &on_set_pod_annotation};
  uint32_t uses_device = 0;
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "mutate_container", err, [&] {
      return vtable_.mutate_container(instance_.get(), &pod, idx, &sink, &uses_device, err.view());
    });
  }
  problems.report(instance_, "mutate_container");
  result.uses_device = uses_device != 0;
  return result;
}

RequestResult DevicePluginHandle::container_request(const hami_pod_view& pod, size_t idx) const {
  require_container(pod, idx, "container_request");
  RequestResult result;
  result.request.struct_size = static_cast<uint32_t>(sizeof result.request);
  ErrorBuffer err;
  hami_status status = HAMI_OK;
  {
    const auto lock = instance_.serialize();
    status = invoke_plugin(instance_, "container_request", [&] {
      return vtable_.container_request(instance_.get(), &pod, idx, &result.request, err.view());
    });
  }
  if (status == HAMI_INVALID_ARGUMENT) {
    result.request = hami_device_request{};
    result.request.struct_size = static_cast<uint32_t>(sizeof result.request);
    result.warning = err.message();
    return result;
  }
  if (status != HAMI_OK) {
    throw status_error(instance_, "container_request", status, err);
  }
  result.request.struct_size = static_cast<uint32_t>(sizeof result.request);
  const hami_device_request& r = result.request;
  if (r.count < 0 || r.memory_mib < 0 || r.memory_percent < 0 || r.memory_percent > 100 ||
      r.cores < 0) {
    throw_invalid_output(instance_, "container_request",
                         "request out of range (count " + std::to_string(r.count) + ", memory " +
                             std::to_string(r.memory_mib) + " MiB, memory percent " +
                             std::to_string(r.memory_percent) + ", cores " +
                             std::to_string(r.cores) + ")");
  }
  return result;
}

NodeInventory DevicePluginHandle::decode_node(const hami_node_view& node) const {
  NodeInventory result;
  ErrorBuffer err;
  if (const hami_status status = decode_into(node, result, err); status != HAMI_OK)
    throw status_error(instance_, "decode_node", status, err);
  return result;
}

std::optional<NodeInventory> DevicePluginHandle::decode_node_if_registered(
    const hami_node_view& node) const {
  NodeInventory result;
  ErrorBuffer err;
  const hami_status status = decode_into(node, result, err);
  if (status == HAMI_NOT_FOUND)
    return std::nullopt;
  if (status != HAMI_OK)
    throw status_error(instance_, "decode_node", status, err);
  return result;
}

hami_status DevicePluginHandle::decode_into(const hami_node_view& node, NodeInventory& result,
                                            ErrorBuffer& err) const {
  CallProblems problems;
  SinkContext<NodeInventory> ctx{&result, &problems};
  const hami_device_sink sink{static_cast<uint32_t>(sizeof(hami_device_sink)), &ctx, &on_device,
                              &on_pair_score};
  hami_status status = HAMI_OK;
  {
    const auto lock = instance_.serialize();
    status = invoke_plugin(instance_, "decode_node", [&] {
      return vtable_.decode_node(instance_.get(), &node, &sink, err.view());
    });
  }
  if (status == HAMI_OK)
    problems.report(instance_, "decode_node");
  return status;
}

HealthResult DevicePluginHandle::node_health(const hami_node_view& node, int64_t now) const {
  HealthResult result;
  CallProblems problems;
  SinkContext<std::vector<AnnotationWrite>> ctx{&result.writes, &problems};
  const hami_annotation_sink writes = annotation_sink(ctx);
  hami_health_result out{};
  out.struct_size = static_cast<uint32_t>(sizeof out);
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "node_health", err, [&] {
      return vtable_.node_health(instance_.get(), &node, now, &out, &writes, err.view());
    });
  }
  problems.report(instance_, "node_health");
  result.healthy = out.healthy != 0;
  result.needs_update = out.needs_update != 0;
  return result;
}

std::vector<AnnotationWrite> DevicePluginHandle::node_cleanup(const hami_node_view& node) const {
  std::vector<AnnotationWrite> result;
  if (vtable_.node_cleanup == nullptr) {
    return result;
  }
  CallProblems problems;
  SinkContext<std::vector<AnnotationWrite>> ctx{&result, &problems};
  const hami_annotation_sink writes = annotation_sink(ctx);
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "node_cleanup", err,
                [&] { return vtable_.node_cleanup(instance_.get(), &node, &writes, err.view()); });
  }
  problems.report(instance_, "node_cleanup");
  return result;
}

FitResult DevicePluginHandle::fit(const hami_fit_input& in, std::span<hami_fit_pick> picks) const {
  if (in.request == nullptr) {
    throw std::invalid_argument("fit: in.request is NULL");
  }
  const int32_t wanted = in.request->count;
  if (wanted < 0 || picks.size() < static_cast<size_t>(wanted)) {
    throw std::invalid_argument("fit: picks has " + std::to_string(picks.size()) +
                                " entries for a request of " + std::to_string(wanted) + " devices");
  }
  FitResult result;
  CallProblems problems;
  SinkContext<std::string> reason{&result.reason, &problems};
  hami_fit_output out{};
  out.struct_size = static_cast<uint32_t>(sizeof out);
  out.picks = picks.data();
  out.picks_cap = picks.size();
  out.reason = text_sink(reason);
  PickDataContext pick_data{&result.pick_data, picks.size(), &problems};
  out.pick_data_ctx = &pick_data;
  out.set_pick_data = &on_pick_data;
  problems.check_utf8_after(&result.reason, "fit reason");
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "fit", err,
                [&] { return vtable_.fit(instance_.get(), &in, &out, err.view()); });
  }
  problems.report(instance_, "fit");

  result.fits = out.fits != 0;
  result.picks_len = out.picks_len;
  if (result.picks_len > picks.size()) {
    throw_invalid_output(instance_, "fit",
                         "picks_len " + std::to_string(result.picks_len) + " exceeds picks_cap " +
                             std::to_string(picks.size()));
  }
  if (result.fits && result.picks_len != static_cast<size_t>(wanted)) {
    throw_invalid_output(instance_, "fit",
                         "reports a fit with " + std::to_string(result.picks_len) +
                             " picks for a request of " + std::to_string(wanted));
  }
  for (size_t i = 0; i < result.picks_len; ++i) {
    const hami_fit_pick& pick = picks[i];
    if (pick.device >= in.devices_len) {
      throw_invalid_output(instance_, "fit",
                           "pick " + std::to_string(i) + " names device index " +
                               std::to_string(pick.device) + " but only " +
                               std::to_string(in.devices_len) + " devices were offered");
    }
    if (pick.type.ptr == nullptr && pick.type.len != 0) {
      throw_invalid_output(instance_, "fit",
                           "pick " + std::to_string(i) + " has a NULL type with a length");
    }
    for (size_t j = 0; j < i && !description_.multi_pick(); ++j) {
      if (picks[j].device == pick.device) {
        throw_invalid_output(instance_, "fit",
                             "device index " + std::to_string(pick.device) +
                                 " is picked twice (picks " + std::to_string(j) + " and " +
                                 std::to_string(i) + ")");
      }
    }
  }
  if (!result.pick_data.empty())
    result.pick_data.resize(result.picks_len);
  return result;
}

std::string DevicePluginHandle::encode_allocation(
    std::span<const hami_container_alloc> containers) const {
  std::string result;
  CallProblems problems;
  SinkContext<std::string> ctx{&result, &problems};
  problems.check_utf8_after(&result, "allocation annotation");
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "encode_allocation", err, [&] {
      return vtable_.encode_allocation(instance_.get(), containers.data(), containers.size(),
                                       text_sink(ctx), err.view());
    });
  }
  problems.report(instance_, "encode_allocation");
  return result;
}

PodAllocation DevicePluginHandle::decode_allocation(std::string_view value) const {
  PodAllocation result;
  CallProblems problems;
  SinkContext<PodAllocation> ctx{&result, &problems};
  const hami_allocation_sink sink{static_cast<uint32_t>(sizeof(hami_allocation_sink)), &ctx,
                                  &on_alloc_container, &on_alloc_device};
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "decode_allocation", err, [&] {
      return vtable_.decode_allocation(instance_.get(), hami_str{value.data(), value.size()}, &sink,
                                       err.view());
    });
  }
  problems.report(instance_, "decode_allocation");
  return result;
}

std::optional<PodAllocation> DevicePluginHandle::decode_pod_allocation(
    const hami_pod_view& pod) const {
  if (vtable_.decode_pod_allocation == nullptr)
    throw std::invalid_argument("decode_pod_allocation: the plugin does not implement it");
  PodAllocation result;
  CallProblems problems;
  SinkContext<PodAllocation> ctx{&result, &problems};
  const hami_placed_sink sink{static_cast<uint32_t>(sizeof(hami_placed_sink)), &ctx,
                              &on_placed_container, &on_placed_device};
  ErrorBuffer err;
  hami_status status = HAMI_OK;
  {
    const auto lock = instance_.serialize();
    status = invoke_plugin(instance_, "decode_pod_allocation", [&] {
      return vtable_.decode_pod_allocation(instance_.get(), &pod, &sink, err.view());
    });
  }
  if (status == HAMI_NOT_FOUND)
    return std::nullopt;
  if (status != HAMI_OK)
    throw status_error(instance_, "decode_pod_allocation", status, err);
  problems.report(instance_, "decode_pod_allocation");
  return result;
}

std::vector<AnnotationWrite> DevicePluginHandle::annotate_allocation(
    const hami_pod_view& pod, std::string_view node, const PodAllocation& allocation,
    int64_t now) const {
  std::vector<AnnotationWrite> result;
  if (vtable_.annotate_allocation == nullptr)
    return result;
  const PlacedView placed(allocation);
  const auto& containers = placed.containers();
  CallProblems problems;
  SinkContext<std::vector<AnnotationWrite>> ctx{&result, &problems};
  const hami_annotation_sink writes = annotation_sink(ctx);
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "annotate_allocation", err, [&] {
      return vtable_.annotate_allocation(instance_.get(), &pod, hami_str{node.data(), node.size()},
                                         containers.data(), containers.size(), now, &writes,
                                         err.view());
    });
  }
  problems.report(instance_, "annotate_allocation");
  const auto& allowed = description_.allocation_annotations;
  for (const AnnotationWrite& w : result) {
    if (std::find(allowed.begin(), allowed.end(), w.key) == allowed.end()) {
      throw_invalid_output(instance_, "annotate_allocation",
                           "writes '" + w.key + "', which allocation_annotations does not list");
    }
  }
  return result;
}

std::vector<PartitionRecord> DevicePluginHandle::describe_partitions(
    const hami_pod_view& pod) const {
  std::vector<PartitionRecord> result;
  if (vtable_.describe_partitions == nullptr)
    return result;
  CallProblems problems;
  PartitionContext ctx{&result, &description_.partition_metrics, &problems};
  const hami_partition_sink sink{static_cast<uint32_t>(sizeof(hami_partition_sink)), &ctx,
                                 &on_partition};
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "describe_partitions", err, [&] {
      return vtable_.describe_partitions(instance_.get(), &pod, &sink, err.view());
    });
  }
  problems.report(instance_, "describe_partitions");
  return result;
}

}  // namespace hami::host
