#include "raw_handle.hpp"

namespace hami::testing {
namespace {

std::string str(hami_str s) {
  return s.len == 0 ? std::string() : std::string(s.ptr, s.len);
}
hami_str hs(std::string_view s) {
  return hami_str{s.data(), s.size()};
}

struct Err {
  char buf[2048] = {};
  hami_errbuf get() { return hami_errbuf{buf, sizeof buf}; }
};

void append_string(void* ctx, const char* bytes, std::size_t len) {
  static_cast<std::string*>(ctx)->append(bytes, len);
}

}  // namespace

void RawHandle::check(hami_status s, const char* fn, const char* buf) const {
  if (s != HAMI_OK)
    throw RawCallError(s, name_ + "." + fn + ": " + buf);
}

hami_device_description RawHandle::describe() const {
  hami_device_description d{};
  d.struct_size = sizeof d;
  Err e;
  check(instance_.vtable().describe(instance_.get(), &d, e.get()), "describe", e.buf);
  return d;
}

ContainerMutation RawHandle::mutate_container(const hami_pod_view& pod, std::size_t idx) const {
  ContainerMutation m;
  hami_container_mutation_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &m;
  sink.set_limit = [](void* ctx, hami_str r, hami_str q) {
    static_cast<ContainerMutation*>(ctx)->limits.emplace_back(str(r), str(q));
  };
  sink.add_env = [](void* ctx, hami_str n, hami_str v) {
    static_cast<ContainerMutation*>(ctx)->env.emplace_back(str(n), str(v));
  };
  sink.set_runtime_class = [](void* ctx, hami_str n) {
    static_cast<ContainerMutation*>(ctx)->runtime_class = str(n);
  };
  std::uint32_t uses = 0;
  Err e;
  check(instance_.vtable().mutate_container(instance_.get(), &pod, idx, &sink, &uses, e.get()),
        "mutate_container", e.buf);
  m.uses_device = uses != 0;
  return m;
}

RequestResult RawHandle::container_request(const hami_pod_view& pod, std::size_t idx) const {
  RequestResult r;
  r.request.struct_size = sizeof r.request;
  Err e;
  const hami_status s =
      instance_.vtable().container_request(instance_.get(), &pod, idx, &r.request, e.get());
  check(s, "container_request", e.buf);
  return r;
}

NodeInventory RawHandle::decode_node(const hami_node_view& node) const {
  NodeInventory inv;
  hami_device_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &inv;
  sink.device = [](void* ctx, const hami_device* d) {
    static_cast<NodeInventory*>(ctx)->devices.push_back(
        DeviceRecord{str(d->id), str(d->type), str(d->mode), d->index, d->count, d->memory_mib,
                     d->cores, d->numa, d->flags});
  };
  sink.pair_score = [](void* ctx, hami_str from, hami_str to, std::int32_t score) {
    static_cast<NodeInventory*>(ctx)->pair_scores.push_back({str(from), str(to), score});
  };
  Err e;
  check(instance_.vtable().decode_node(instance_.get(), &node, &sink, e.get()), "decode_node",
        e.buf);
  return inv;
}

namespace {
hami_annotation_sink annotation_sink(std::vector<AnnotationWrite>& writes) {
  hami_annotation_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &writes;
  sink.set = [](void* ctx, hami_str k, hami_str v) {
    static_cast<std::vector<AnnotationWrite>*>(ctx)->push_back({str(k), str(v)});
  };
  sink.remove = [](void* ctx, hami_str k) {
    static_cast<std::vector<AnnotationWrite>*>(ctx)->push_back({str(k), std::nullopt});
  };
  return sink;
}
}  // namespace

HealthResult RawHandle::node_health(const hami_node_view& node, std::int64_t now) const {
  HealthResult r;
  const hami_annotation_sink sink = annotation_sink(r.writes);
  hami_health_result out{};
  out.struct_size = sizeof out;
  Err e;
  check(instance_.vtable().node_health(instance_.get(), &node, now, &out, &sink, e.get()),
        "node_health", e.buf);
  r.healthy = out.healthy != 0;
  r.needs_update = out.needs_update != 0;
  return r;
}

std::vector<AnnotationWrite> RawHandle::node_cleanup(const hami_node_view& node) const {
  std::vector<AnnotationWrite> writes;
  if (instance_.vtable().node_cleanup == nullptr)
    return writes;
  const hami_annotation_sink sink = annotation_sink(writes);
  Err e;
  check(instance_.vtable().node_cleanup(instance_.get(), &node, &sink, e.get()), "node_cleanup",
        e.buf);
  return writes;
}

FitResult RawHandle::fit(const hami_fit_input& in, std::span<hami_fit_pick> picks) const {
  FitResult r;
  hami_fit_output out{};
  out.struct_size = sizeof out;
  out.picks = picks.data();
  out.picks_cap = picks.size();
  out.reason = hami_sink{&r.reason, &append_string};
  Err e;
  check(instance_.vtable().fit(instance_.get(), &in, &out, e.get()), "fit", e.buf);
  r.fits = out.fits != 0;
  r.picks_len = out.picks_len;
  return r;
}

std::string RawHandle::encode_allocation(std::span<const hami_container_alloc> containers) const {
  std::string value;
  Err e;
  check(instance_.vtable().encode_allocation(instance_.get(), containers.data(), containers.size(),
                                             hami_sink{&value, &append_string}, e.get()),
        "encode_allocation", e.buf);
  return value;
}

PodAllocation RawHandle::decode_allocation(std::string_view value) const {
  PodAllocation pa;
  hami_allocation_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &pa;
  sink.container = [](void* ctx) { static_cast<PodAllocation*>(ctx)->emplace_back(); };
  sink.device = [](void* ctx, const hami_alloc_device* d) {
    auto& pa_ = *static_cast<PodAllocation*>(ctx);
    if (pa_.empty())
      pa_.emplace_back();
    pa_.back().push_back({str(d->id), str(d->type), d->memory_mib, d->cores});
  };
  Err e;
  check(instance_.vtable().decode_allocation(instance_.get(), hs(value), &sink, e.get()),
        "decode_allocation", e.buf);
  return pa;
}

}  // namespace hami::testing
