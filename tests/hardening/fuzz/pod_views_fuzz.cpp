// Fuzz target: the pod and node views (host/k8s PodModel, NodeModel) over
// any JSON document. Any input must either build a view or throw
// ObjectError, and every string of a view must lie inside memory the model
// owns (touched byte by byte, so ASan sees a dangling view); the mutations
// the webhook applies must keep the view consistent.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "k8s/node.hpp"
#include "k8s/object_error.hpp"
#include "k8s/pod.hpp"

namespace {

// Reads every byte so a view pointing at freed memory trips ASan.
std::size_t touch(hami_str s) {
  std::size_t sum = 0;
  for (std::size_t i = 0; i < s.len; ++i)
    sum += static_cast<unsigned char>(s.ptr[i]);
  return sum;
}

std::size_t touch(const hami_kv* kv, std::size_t n) {
  std::size_t sum = 0;
  for (std::size_t i = 0; i < n; ++i)
    sum += touch(kv[i].key) + touch(kv[i].value);
  return sum;
}

std::string_view text(hami_str s) {
  return {s.ptr, s.len};
}

void exercise_pod(const rapidjson::Value& value) {
  hami::k8s::PodModel pod(value, "default");
  const hami_pod_view& v = pod.view();
  std::size_t sum = touch(v.namespace_) + touch(v.name) + touch(v.uid) + touch(v.scheduler_name) +
                    touch(v.node_name) + touch(v.runtime_class_name) +
                    touch(v.annotations, v.annotations_len) + touch(v.labels, v.labels_len);
  if (v.containers_len != pod.container_count())
    __builtin_trap();
  for (std::size_t i = 0; i < v.containers_len; ++i) {
    const hami_container_view& c = v.containers[i];
    sum += touch(c.name) + touch(c.limits, c.limits_len) + touch(c.requests, c.requests_len) +
           touch(c.env, c.env_len);
    for (std::size_t k = 0; k < c.limits_len; ++k) {
      const auto found = pod.limit(i, text(c.limits[k].key));
      if (!found)
        __builtin_trap();  // a listed limit must be found
    }
    for (std::size_t k = 0; k < c.env_len; ++k)
      (void)pod.env_is_literal(i, text(c.env[k].key));
  }
  // The webhook's mutations, then the view again.
  for (std::size_t i = 0; i < pod.container_count(); ++i) {
    (void)pod.set_limit(i, "nvidia.com/gpu", "1");
    (void)pod.set_env(i, "CUDA_DISABLE_CONTROL", "true");
  }
  (void)pod.set_scheduler_name("hami-scheduler");
  (void)pod.set_runtime_class_name("nvidia");
  const hami_pod_view& after = pod.view();
  if (text(after.scheduler_name) != "hami-scheduler")
    __builtin_trap();
  for (std::size_t i = 0; i < after.containers_len; ++i) {
    const auto limit = pod.limit(i, "nvidia.com/gpu");
    if (!limit || *limit != "1")
      __builtin_trap();
    const hami_container_view& c = after.containers[i];
    sum += touch(c.limits, c.limits_len) + touch(c.env, c.env_len);
  }
  static_cast<void>(sum);
}

void exercise_node(const rapidjson::Value& value) {
  const hami::k8s::NodeModel node(value);
  const hami_node_view& v = node.view();
  std::size_t sum = touch(v.name) + touch(v.annotations, v.annotations_len) +
                    touch(v.labels, v.labels_len) + touch(v.allocatable, v.allocatable_len) +
                    touch(v.capacity, v.capacity_len);
  for (const hami_kv& kv : node.annotations()) {
    const auto found = node.annotation(text(kv.key));
    if (!found || *found != text(kv.value))
      __builtin_trap();  // annotation keys are unique and found as listed
  }
  sum += node.name().size() + node.uid().size() + node.resource_version().size();
  static_cast<void>(sum);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rapidjson::Document doc;
  doc.Parse(reinterpret_cast<const char*>(data), size);
  if (doc.HasParseError() || !doc.IsObject())
    return 0;
  try {
    exercise_pod(doc);
  } catch (const hami::k8s::ObjectError&) {
  }
  try {
    exercise_node(doc);
  } catch (const hami::k8s::ObjectError&) {
  }
  return 0;
}
