// PodModel: a Pod parsed from its JSON into the flat hami_pod_view that
// plugins read, plus what the admission webhook needs to patch the pod's own
// JSON (where each container lives, which parent maps and arrays exist).
//
// Contract:
//  - Construction validates the type of every member the model reads and
//    throws ObjectError (pointer + problem) on the first wrong one. Members
//    it does not read are not looked at. JSON null counts as absent.
//  - The model owns copies of every string; the source document may be
//    destroyed after construction.
//  - view() stays valid for the model's lifetime. Containers are init
//    containers first (spec order), then app containers. Key/value arrays
//    have unique keys: a duplicated key keeps its first position and its
//    last value (Go decoding and the kubelet let the later entry win).
//  - The set_* mutators change the view the way the matching JSON Patch
//    operation changes the JSON. They may reallocate the arrays the view
//    points to, so re-read view() after a mutation; the view struct itself
//    keeps its address.
//  - Movable, not copyable (the view points into the model's storage).
#pragma once

#include <hami/objects.h>
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "k8s/object_error.hpp"
#include "k8s/string_arena.hpp"

namespace hami::k8s {

// Which array of the pod spec a container comes from.
enum class ContainerList : uint8_t { Init, App };

// Where container i lives in the pod JSON and which of its members exist.
struct ContainerJson {
  ContainerList list = ContainerList::App;
  uint32_t index = 0;          // position in spec.initContainers / spec.containers
  bool has_resources = false;  // "resources" is an object
  bool has_limits = false;     // "resources.limits" is an object
  bool has_requests = false;   // "resources.requests" is an object
  bool has_env = false;        // "env" is an array
  uint32_t env_size = 0;       // elements in the "env" array
  bool sidecar = false;        // init container with restartPolicy "Always"
};

// The result of a set_* mutation, for turning it into a JSON Patch operation.
enum class Change : uint8_t {
  None,     // the value was already there: no operation
  Added,    // the member did not exist: "add"
  Replaced  // the member existed with another value: "replace"
};

// Outcome of set_env: which element of the container's "env" array holds
// the entry afterwards (a new element is appended at env_size).
struct EnvChange {
  Change change = Change::None;
  uint32_t json_index = 0;
};

class PodModel {
 public:
  // Parses `pod` (must be a JSON object). `default_namespace` fills the
  // view's namespace when metadata.namespace is absent (an AdmissionRequest
  // carries it beside the object).
  explicit PodModel(const rapidjson::Value& pod, std::string_view default_namespace = {});

  PodModel(PodModel&&) noexcept = default;
  PodModel& operator=(PodModel&&) noexcept = default;
  PodModel(const PodModel&) = delete;
  PodModel& operator=(const PodModel&) = delete;

  const hami_pod_view& view() const noexcept { return view_; }
  size_t container_count() const noexcept { return containers_.size(); }
  const ContainerJson& container_json(size_t i) const { return json_.at(i); }

  bool has_spec() const noexcept { return has_spec_; }                // "spec" is an object
  bool has_metadata() const noexcept { return has_metadata_; }        // "metadata" is an object
  bool has_annotations() const noexcept { return has_annotations_; }  // metadata.annotations map
  bool has_labels() const noexcept { return has_labels_; }            // metadata.labels map
  bool has_scheduler_name() const noexcept { return has_scheduler_name_; }  // non-null member
  bool has_runtime_class_name() const noexcept { return has_runtime_class_name_; }

  // status.phase ("" when absent) and whether metadata.deletionTimestamp is set.
  std::string_view phase() const noexcept { return phase_; }
  bool terminating() const noexcept { return terminating_; }
  // spec.priority (nullopt when absent: kube-scheduler counts it as 0) and
  // status.startTime as written (RFC 3339; "" when absent), for preemption.
  std::optional<int32_t> priority() const noexcept { return priority_; }
  std::string_view start_time() const noexcept { return start_time_; }

  // Lookups in container i of the current view.
  std::optional<std::string_view> limit(size_t container, std::string_view resource) const;
  std::optional<std::string_view> request(size_t container, std::string_view resource) const;
  std::optional<std::string_view> env(size_t container, std::string_view name) const;
  // Whether the effective env entry `name` carries a literal value (false for
  // valueFrom entries, whose view value is empty).
  bool env_is_literal(size_t container, std::string_view name) const;

  // resources.limits[resource] = quantity on container i.
  Change set_limit(size_t container, std::string_view resource, std::string_view quantity);
  // resources.requests[resource] = quantity on container i.
  Change set_request(size_t container, std::string_view resource, std::string_view quantity);
  // metadata.annotations[key] = value.
  Change set_annotation(std::string_view key, std::string_view value);
  // Sets env `name` to the literal `value` on container i: replaces the
  // effective entry of that name, or appends a new one.
  EnvChange set_env(size_t container, std::string_view name, std::string_view value);
  Change set_scheduler_name(std::string_view name);
  Change set_runtime_class_name(std::string_view name);

 private:
  struct ContainerData {
    std::vector<hami_kv> limits;
    std::vector<hami_kv> requests;
    std::vector<hami_kv> env;
    std::vector<uint32_t> env_json_index;  // parallel to env
    std::vector<uint8_t> env_literal;      // parallel to env
  };

  void parse_metadata(const rapidjson::Value& pod, std::string_view default_namespace);
  void parse_spec(const rapidjson::Value& pod);
  void parse_status(const rapidjson::Value& pod);
  void refresh_view(size_t container);
  // resources.<map>[resource] = quantity on container i (set_limit, set_request).
  Change set_quantity(size_t container, std::vector<hami_kv>& map, bool& has_map,
                      std::string_view resource, std::string_view quantity);
  hami_str own(std::string_view text);

  StringArena arena_;
  std::vector<hami_kv> annotations_;
  std::vector<hami_kv> labels_;
  std::vector<ContainerData> data_;
  std::vector<hami_container_view> containers_;
  std::vector<ContainerJson> json_;
  hami_pod_view view_{};
  std::string_view phase_;
  std::string_view start_time_;
  std::optional<int32_t> priority_;
  bool has_spec_ = false;
  bool has_metadata_ = false;
  bool has_annotations_ = false;
  bool has_labels_ = false;
  bool has_scheduler_name_ = false;
  bool has_runtime_class_name_ = false;
  bool terminating_ = false;
};

}  // namespace hami::k8s
