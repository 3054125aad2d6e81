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
  const std::string who = "Precondition failed: pod " + pod.namespace_ + "/" + pod.name;
  if (patch.expect_unbound && !pod.node_name.empty())
    return who + " is bound to node \"" + pod.node_name + "\"";
  if (patch.expect_unbound && pod.terminating)
    return who + " is being deleted";
  const auto check = [&](const KeyValues& expected, bool labels) -> std::string {
    for (const auto& [key, value] : expected) {
      const auto current = labels ? pod.label(key) : pod.annotation(key);
      if (!current || *current != value) {
        return who + " " + (labels ? "label " : "annotation ") + key + " is no longer \"" + value +
               "\"";
      }
    }
    return {};
  };
  const auto check_absent = [&](const std::vector<std::string>& keys, bool labels) -> std::string {
    for (const std::string& key : keys) {
      if ((labels ? pod.label(key) : pod.annotation(key)).has_value())
        return who + " " + (labels ? "label " : "annotation ") + key + " is no longer absent";
    }
    return {};
  };
  if (std::string unmet = check(patch.expect_annotations, false); !unmet.empty())
    return unmet;
  if (std::string unmet = check(patch.expect_labels, true); !unmet.empty())
    return unmet;
  if (std::string unmet = check_absent(patch.expect_absent_annotations, false); !unmet.empty())
    return unmet;
  return check_absent(patch.expect_absent_labels, true);
}

void expect_as_read(PodMetadataPatch& patch, const PodRecord& pod) {
  const auto expect = [&](const std::vector<MetadataWrite>& writes, bool labels, KeyValues& values,
                          std::vector<std::string>& absent) {
    for (const MetadataWrite& w : writes) {
      if (const auto current = labels ? pod.label(w.key) : pod.annotation(w.key))
        values.emplace_back(w.key, std::string(*current));
      else
        absent.push_back(w.key);
    }
  };
  expect(patch.annotations, false, patch.expect_annotations, patch.expect_absent_annotations);
  expect(patch.labels, true, patch.expect_labels, patch.expect_absent_labels);
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
