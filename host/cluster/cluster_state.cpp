#include "cluster/cluster_state.hpp"

namespace hami::cluster {

namespace {

std::optional<std::string_view> lookup(const hami_kv* items, size_t len, std::string_view key) {
  for (size_t i = 0; i < len; ++i) {
    if (std::string_view(items[i].key.ptr, items[i].key.len) == key)
      return std::string_view(items[i].value.ptr, items[i].value.len);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string_view> PodRecord::annotation(std::string_view key) const {
  if (!model)
    return std::nullopt;
  return lookup(model->view().annotations, model->view().annotations_len, key);
}

std::optional<std::string_view> PodRecord::label(std::string_view key) const {
  if (!model)
    return std::nullopt;
  return lookup(model->view().labels, model->view().labels_len, key);
}

std::string modified_since_read(std::string_view resource, std::string_view name) {
  return "Operation cannot be fulfilled on " + std::string(resource) + " \"" + std::string(name) +
         "\": the object has been modified; please apply your changes to the latest version "
         "and try again";
}

std::string unmet_precondition(const PodRecord& pod, const PodMetadataPatch& patch,
                               std::optional<std::string_view> expected_uid) {
  if (expected_uid && !expected_uid->empty() && pod.uid != *expected_uid) {
    return "Precondition failed: UID in precondition: " + std::string(*expected_uid) +
           ", UID in object meta: " + pod.uid;
  }
  if (patch.expect_resource_version && pod.resource_version != *patch.expect_resource_version) {
    return modified_since_read("pods", pod.name);
  }
  const auto check = [&](const KeyValues& expected, bool labels) -> std::string {
    for (const auto& [key, value] : expected) {
      const auto current = labels ? pod.label(key) : pod.annotation(key);
      if (!current || *current != value) {
        return "Precondition failed: pod " + pod.namespace_ + "/" + pod.name + " " +
               (labels ? "label " : "annotation ") + key + " is no longer \"" + value + "\"";
      }
    }
    return {};
  };
  if (std::string unmet = check(patch.expect_annotations, false); !unmet.empty())
    return unmet;
  return check(patch.expect_labels, true);
}

bool carries(const PodRecord& pod, const PodMetadataPatch& patch) {
  const auto holds = [&](const std::vector<MetadataWrite>& writes, bool labels) {
    for (const MetadataWrite& w : writes) {
      const auto current = labels ? pod.label(w.key) : pod.annotation(w.key);
      if (current.has_value() != w.value.has_value() || (current && *current != *w.value))
        return false;
    }
    return true;
  };
  return holds(patch.annotations, false) && holds(patch.labels, true);
}

}  // namespace hami::cluster
