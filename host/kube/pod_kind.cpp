#include "kube/pod_kind.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "cluster/object_records.hpp"
#include "kube/watch_event.hpp"

namespace hami::kube {

namespace {

std::string compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace

PodKind::Key PodKind::key(std::string_view object_key) {
  return split_object_key(object_key);
}

std::optional<std::pair<PodKind::Key, PodKind::Stored>> PodKind::build(
    const rapidjson::Document& pod) {
  Record record = cluster::make_pod_record(pod);
  if (record->name.empty())
    return std::nullopt;
  Key key{record->namespace_, record->name};
  std::string json = record->node_name.empty() ? compact(pod) : std::string();
  return std::pair{std::move(key), Stored{std::move(record), std::move(json)}};
}

void PodKind::carry_over(rapidjson::Document& pod, Stored& fresh, const Stored& stored) {
  // spec.nodeName never changes once set, so an update without it is older
  // than the binding stored (mark_bound) and must not unbind.
  if (!fresh.record->node_name.empty() || stored.record->uid != fresh.record->uid ||
      stored.record->node_name.empty()) {
    return;
  }
  set_node_name(pod, stored.record->node_name);
  fresh.record = cluster::make_pod_record(pod);
  fresh.json.clear();
}

bool PodKind::deleted_by(const Stored& pod, const rapidjson::Value& last_state) {
  const std::string uid = uid_of(last_state);
  return uid.empty() || pod.record->uid == uid;
}

void PodKind::upserted(const Stored* before, const Stored& now, cluster::WatcherNotes& notes) {
  notes.pod_stored(before ? before->record : nullptr, now.record);
}

void PodKind::deleted(const Key&, const Stored& pod, cluster::WatcherNotes& notes) {
  notes.pod_deleted(pod.record);
}

std::string PodKind::text_to_bind(const Stored& pod, std::string_view uid) {
  if (!uid.empty() && pod.record->uid != uid)
    return {};
  if (!pod.record->node_name.empty())
    return {};
  return pod.json;
}

void PodKind::set_node_name(rapidjson::Document& pod, std::string_view node) {
  auto& a = pod.GetAllocator();
  auto spec = pod.FindMember("spec");
  if (spec == pod.MemberEnd() || !spec->value.IsObject()) {
    pod.RemoveMember("spec");
    pod.AddMember("spec", rapidjson::Value(rapidjson::kObjectType), a);
    spec = pod.FindMember("spec");
  }
  spec->value.RemoveMember("nodeName");
  spec->value.AddMember(
      "nodeName", rapidjson::Value(node.data(), static_cast<rapidjson::SizeType>(node.size()), a),
      a);
}

}  // namespace hami::kube
