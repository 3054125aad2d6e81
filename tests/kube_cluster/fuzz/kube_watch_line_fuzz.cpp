// Fuzz target: watch-stream lines → parse_watch_event → trimming → the
// records the caches build. Every line must either parse or throw
// WatchEventError, and every object must either build or throw
// ObjectError — never crash, hang or read out of bounds. A trimmed object
// that builds must agree with the untrimmed one on what the caches key on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cluster/object_records.hpp"
#include "k8s/object_error.hpp"
#include "kube/object_trim.hpp"
#include "kube/watch_event.hpp"

namespace {

using hami::kube::JsonAllocator;

void check(bool ok) {
  if (!ok)
    std::abort();
}

void records(const rapidjson::Value& object) {
  rapidjson::Document holder;
  JsonAllocator& a = holder.GetAllocator();
  try {
    const auto trimmed = hami::cluster::make_pod_record(hami::kube::trim_pod(object, a));
    try {
      const auto full = hami::cluster::make_pod_record(object);
      check(full->namespace_ == trimmed->namespace_ && full->name == trimmed->name &&
            full->uid == trimmed->uid && full->node_name == trimmed->node_name &&
            full->init_containers_succeeded == trimmed->init_containers_succeeded);
    } catch (const hami::k8s::ObjectError&) {
      // The full object may fail on a member the trim drops (env): fine.
    }
  } catch (const hami::k8s::ObjectError&) {
  }
  try {
    const auto trimmed = hami::cluster::make_node_model(hami::kube::trim_node(object, a));
    const auto full = hami::cluster::make_node_model(object);
    check(full->name() == trimmed->name() &&
          full->resource_version() == trimmed->resource_version());
  } catch (const hami::k8s::ObjectError&) {
  }
  (void)hami::cluster::make_quota_record(hami::kube::trim_quota(object, a));
  (void)hami::cluster::make_namespace_record(hami::kube::trim_namespace(object, a));
  (void)hami::kube::object_key(object);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  while (!input.empty()) {
    const size_t end = input.find('\n');
    const std::string_view line = input.substr(0, end);
    input = end == std::string_view::npos ? std::string_view() : input.substr(end + 1);
    try {
      const hami::kube::WatchEvent event = hami::kube::parse_watch_event(line);
      check(event.object().IsObject());
      records(event.object());
    } catch (const hami::kube::WatchEventError&) {
    }
  }
  return 0;
}
