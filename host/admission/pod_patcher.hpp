// PodPatcher: applies admission mutations to a PodModel and records each one
// as targeted JSON Patch operations against the request's own pod JSON.
//
// Contract:
//  - A mutation that leaves the pod as it is (the value is already there)
//    produces no operation, so reviewing a patched pod again yields an
//    empty patch (idempotence).
//  - Missing parents are added first, once: "resources" and
//    "resources/limits" as {}, "env" as [], "spec" as {}.
//  - A member that exists is changed with "replace", a new one with "add";
//    env entries are appended at their explicit index, and an existing entry
//    of the same name (the effective, last one) is replaced whole, which also
//    turns a valueFrom entry into a literal.
//  - Keys are escaped per RFC 6901 ("nvidia.com/gpu" → "nvidia.com~1gpu").
//  - Every name and value must be valid UTF-8 (JSON text cannot carry
//    anything else unchanged): otherwise std::invalid_argument is thrown and
//    neither the pod nor the patch changes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "admission/json_patch.hpp"
#include "k8s/pod.hpp"

namespace hami::admission {

class PodPatcher {
 public:
  // Both must outlive the patcher.
  PodPatcher(k8s::PodModel& pod, JsonPatch& patch) : pod_(pod), patch_(patch) {}

  void set_limit(size_t container, std::string_view resource, std::string_view quantity);
  void set_request(size_t container, std::string_view resource, std::string_view quantity);
  void set_annotation(std::string_view key, std::string_view value);
  void set_env(size_t container, std::string_view name, std::string_view value);
  // Sets spec.runtimeClassName only when the pod has none (absent or "").
  void set_runtime_class_if_absent(std::string_view name);
  void set_scheduler_name(std::string_view name);

 private:
  // "/spec/initContainers/<j>" or "/spec/containers/<j>" for container i.
  std::string container_pointer(size_t container) const;
  void ensure_spec();
  // resources.<map>[resource] after a set_limit / set_request on the model.
  void patch_quantity(size_t container, const k8s::ContainerJson& before, bool had_map,
                      std::string_view map, k8s::Change change, std::string_view resource,
                      std::string_view quantity);

  k8s::PodModel& pod_;
  JsonPatch& patch_;
  bool spec_added_ = false;
};

}  // namespace hami::admission
