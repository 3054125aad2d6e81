#include "admission/pod_patcher.hpp"

#include <stdexcept>

#include "admission/json_text.hpp"
#include "k8s/json_path.hpp"

namespace hami::admission {

using k8s::Change;

namespace {

void require_utf8(std::string_view what, std::string_view text) {
  if (!is_valid_utf8(text)) {
    throw std::invalid_argument(std::string(what) + " is not valid UTF-8");
  }
}

}  // namespace

std::string PodPatcher::container_pointer(size_t container) const {
  const k8s::ContainerJson& where = pod_.container_json(container);
  std::string pointer =
      where.list == k8s::ContainerList::Init ? "/spec/initContainers" : "/spec/containers";
  k8s::append_pointer_index(pointer, where.index);
  return pointer;
}

void PodPatcher::ensure_spec() {
  if (pod_.has_spec() || spec_added_)
    return;
  patch_.add_empty_object("/spec");
  spec_added_ = true;
}

void PodPatcher::set_limit(size_t container, std::string_view resource, std::string_view quantity) {
  require_utf8("limit name", resource);
  require_utf8("limit value", quantity);
  const k8s::ContainerJson before = pod_.container_json(container);
  const Change change = pod_.set_limit(container, resource, quantity);
  patch_quantity(container, before, before.has_limits, "/limits", change, resource, quantity);
}

void PodPatcher::set_request(size_t container, std::string_view resource,
                             std::string_view quantity) {
  require_utf8("request name", resource);
  require_utf8("request value", quantity);
  const k8s::ContainerJson before = pod_.container_json(container);
  const Change change = pod_.set_request(container, resource, quantity);
  patch_quantity(container, before, before.has_requests, "/requests", change, resource, quantity);
}

void PodPatcher::patch_quantity(size_t container, const k8s::ContainerJson& before, bool had_map,
                                std::string_view map, Change change, std::string_view resource,
                                std::string_view quantity) {
  if (change == Change::None)
    return;
  std::string pointer = container_pointer(container);
  pointer += "/resources";
  if (!before.has_resources)
    patch_.add_empty_object(pointer);
  pointer += map;
  if (!had_map)
    patch_.add_empty_object(pointer);
  k8s::append_pointer_token(pointer, resource);
  if (change == Change::Replaced) {
    patch_.replace(pointer, quantity);
  } else {
    patch_.add(pointer, quantity);
  }
}

void PodPatcher::set_annotation(std::string_view key, std::string_view value) {
  require_utf8("annotation key", key);
  require_utf8("annotation value", value);
  const bool had_metadata = pod_.has_metadata();
  const bool had_annotations = pod_.has_annotations();
  const Change change = pod_.set_annotation(key, value);
  if (change == Change::None)
    return;
  std::string pointer = "/metadata";
  if (!had_metadata)
    patch_.add_empty_object(pointer);
  pointer += "/annotations";
  if (!had_annotations)
    patch_.add_empty_object(pointer);
  k8s::append_pointer_token(pointer, key);
  if (change == Change::Replaced) {
    patch_.replace(pointer, value);
  } else {
    patch_.add(pointer, value);
  }
}

void PodPatcher::set_env(size_t container, std::string_view name, std::string_view value) {
  require_utf8("env name", name);
  require_utf8("env value", value);
  const bool had_env = pod_.container_json(container).has_env;
  const k8s::EnvChange change = pod_.set_env(container, name, value);
  if (change.change == Change::None)
    return;
  std::string pointer = container_pointer(container);
  pointer += "/env";
  if (!had_env)
    patch_.add_empty_array(pointer);
  k8s::append_pointer_index(pointer, change.json_index);
  if (change.change == Change::Replaced) {
    patch_.replace_object(pointer, {{"name", name}, {"value", value}});
  } else {
    patch_.add_object(pointer, {{"name", name}, {"value", value}});
  }
}

void PodPatcher::set_runtime_class_if_absent(std::string_view name) {
  require_utf8("runtime class name", name);
  if (name.empty() || pod_.view().runtime_class_name.len != 0)
    return;
  const Change change = pod_.set_runtime_class_name(name);
  if (change == Change::None)
    return;
  ensure_spec();
  if (change == Change::Replaced) {
    patch_.replace("/spec/runtimeClassName", name);
  } else {
    patch_.add("/spec/runtimeClassName", name);
  }
}

void PodPatcher::set_scheduler_name(std::string_view name) {
  require_utf8("scheduler name", name);
  const Change change = pod_.set_scheduler_name(name);
  if (change == Change::None)
    return;
  ensure_spec();
  if (change == Change::Replaced) {
    patch_.replace("/spec/schedulerName", name);
  } else {
    patch_.add("/spec/schedulerName", name);
  }
}

}  // namespace hami::admission
