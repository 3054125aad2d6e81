#include "cluster/object_records.hpp"

#include <string>
#include <utility>

#include "cluster/json_members.hpp"
#include "hami/plugin.hpp"
#include "k8s/pod.hpp"

namespace hami::cluster {

using rapidjson::Value;

bool init_containers_succeeded(const Value& pod, size_t init_count) {
  if (init_count == 0)
    return false;
  const Value* status = find_member(pod, "status");
  if (status == nullptr)
    return false;
  const Value* statuses = find_member(*status, "initContainerStatuses");
  if (statuses == nullptr || !statuses->IsArray() || statuses->Size() < init_count)
    return false;
  for (const Value& s : statuses->GetArray()) {
    const Value* state = find_member(s, "state");
    const Value* terminated = state != nullptr ? find_member(*state, "terminated") : nullptr;
    const Value* code = terminated != nullptr ? find_member(*terminated, "exitCode") : nullptr;
    if (code == nullptr || !code->IsInt() || code->GetInt() != 0)
      return false;
  }
  return true;
}

KeyValues string_pairs(const Value* map) {
  KeyValues out;
  if (map == nullptr || !map->IsObject())
    return out;
  for (const auto& m : map->GetObject()) {
    std::string value;
    if (m.value.IsString()) {
      value.assign(m.value.GetString(), m.value.GetStringLength());
    } else if (m.value.IsInt64()) {
      value = std::to_string(m.value.GetInt64());
    } else if (m.value.IsUint64()) {
      value = std::to_string(m.value.GetUint64());
    } else {
      continue;
    }
    out.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()), std::move(value));
  }
  return out;
}

std::shared_ptr<const k8s::NodeModel> make_node_model(const Value& node) {
  return std::make_shared<const k8s::NodeModel>(node);
}

std::shared_ptr<const PodRecord> make_pod_record(const Value& pod) {
  auto record = std::make_shared<PodRecord>();
  auto model = std::make_shared<const k8s::PodModel>(pod);
  const hami_pod_view& view = model->view();
  record->namespace_ = to_sv(view.namespace_);
  record->name = to_sv(view.name);
  record->uid = to_sv(view.uid);
  record->node_name = to_sv(view.node_name);
  record->phase = model->phase();
  record->terminating = model->terminating();
  record->init_containers_succeeded = init_containers_succeeded(pod, view.init_count);
  if (const Value* meta = find_member(pod, "metadata")) {
    record->resource_version = string_at(*meta, "resourceVersion");
  }
  if (const Value* spec = find_member(pod, "spec")) {
    if (const Value* group = find_member(*spec, "schedulingGroup"))
      record->pod_group_name = string_at(*group, "podGroupName");
  }
  record->model = std::move(model);
  return record;
}

ResourceQuotaRecord make_quota_record(const Value& quota, std::string_view default_namespace) {
  ResourceQuotaRecord record;
  if (const Value* meta = find_member(quota, "metadata")) {
    record.namespace_ = string_at(*meta, "namespace");
    record.name = string_at(*meta, "name");
  }
  if (record.namespace_.empty())
    record.namespace_ = default_namespace;
  if (const Value* spec = find_member(quota, "spec")) {
    record.hard = string_pairs(find_member(*spec, "hard"));
  }
  return record;
}

NamespaceRecord make_namespace_record(const Value& namespace_object) {
  NamespaceRecord record;
  if (const Value* meta = find_member(namespace_object, "metadata")) {
    record.name = string_at(*meta, "name");
    record.labels = string_pairs(find_member(*meta, "labels"));
  }
  return record;
}

}  // namespace hami::cluster
