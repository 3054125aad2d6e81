#include "extender/preemption_args.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <map>
#include <string>

#include "cluster/node_lock.hpp"
#include "k8s/json_depth.hpp"

namespace hami::extender {

namespace {

using rapidjson::Value;

const Value* member_named(const Value& object, std::string_view field) {
  const Value* found = nullptr;
  for (const auto& m : object.GetObject()) {
    if (go_field_is(m.name, field))
      found = &m.value;  // Go: a later duplicate wins
  }
  return found;
}

// A member of a Kubernetes object (exact key, as the API's JSON tags).
const Value* k8s_member(const Value& object, std::string_view key) {
  const Value* found = nullptr;
  for (const auto& m : object.GetObject()) {
    if (std::string_view(m.name.GetString(), m.name.GetStringLength()) == key)
      found = &m.value;
  }
  return found;
}

int64_t pdb_violations(const Value& victims, std::string_view type) {
  const Value* v = member_named(victims, "NumPDBViolations");
  if (v == nullptr || v->IsNull())
    return 0;
  if (!v->IsInt64())
    throw_type_error(*v, std::string(type) + ".NumPDBViolations", "int64");
  return v->GetInt64();
}

// The uid, priority and start time of a full victim pod.
scheduling::ProposedVictim full_victim(const Value& pod) {
  constexpr std::string_view kField = "Victims.Pods";
  if (!pod.IsObject())
    throw_type_error(pod, kField, "v1.Pod");
  scheduling::ProposedVictim victim;
  scheduling::VictimRank rank;
  if (const Value* meta = k8s_member(pod, "metadata"); meta != nullptr && !meta->IsNull()) {
    if (!meta->IsObject())
      throw_type_error(*meta, "Pod.metadata", "v1.ObjectMeta");
    if (const Value* uid = k8s_member(*meta, "uid"))
      victim.uid = go_string_field(*uid, "Pod.metadata.uid");
  }
  if (const Value* spec = k8s_member(pod, "spec"); spec != nullptr && !spec->IsNull()) {
    if (!spec->IsObject())
      throw_type_error(*spec, "Pod.spec", "v1.PodSpec");
    if (const Value* p = k8s_member(*spec, "priority"); p != nullptr && !p->IsNull()) {
      if (!p->IsInt())
        throw_type_error(*p, "Pod.spec.priority", "int32");
      rank.priority = p->GetInt();
    }
  }
  if (const Value* status = k8s_member(pod, "status"); status != nullptr && !status->IsNull()) {
    if (!status->IsObject())
      throw_type_error(*status, "Pod.status", "v1.PodStatus");
    if (const Value* s = k8s_member(*status, "startTime"); s != nullptr && !s->IsNull()) {
      const std::string text = go_string_field(*s, "Pod.status.startTime");
      const auto seconds = cluster::parse_rfc3339(text);
      if (!seconds)
        throw DecodeError("parsing time \"" + text + "\": not RFC 3339");
      rank.start = *seconds;
    }
  }
  victim.rank = rank;
  return victim;
}

scheduling::ProposedVictim meta_victim(const Value& pod) {
  if (!pod.IsObject())
    throw_type_error(pod, "MetaVictims.Pods", "v1.MetaPod");
  scheduling::ProposedVictim victim;
  if (const Value* uid = member_named(pod, "UID"))
    victim.uid = go_string_field(*uid, "MetaPod.UID");
  return victim;
}

std::vector<scheduling::PreemptionCandidate> candidates_of(const Value& map, bool meta) {
  const std::string_view field = meta ? "ExtenderPreemptionArgs.NodeNameToMetaVictims"
                                      : "ExtenderPreemptionArgs.NodeNameToVictims";
  const std::string_view type = meta ? "MetaVictims" : "Victims";
  if (!map.IsObject())
    throw_type_error(map, field, meta ? "map[string]*v1.MetaVictims" : "map[string]*v1.Victims");
  std::map<std::string, scheduling::PreemptionCandidate> by_node;
  for (const auto& m : map.GetObject()) {
    std::string node(m.name.GetString(), m.name.GetStringLength());
    scheduling::PreemptionCandidate c;
    c.node = node;
    const Value& victims = m.value;
    if (!victims.IsNull()) {
      if (!victims.IsObject())
        throw_type_error(victims, field, std::string("v1.") + std::string(type));
      c.pdb_violations = pdb_violations(victims, type);
      const Value* pods = member_named(victims, "Pods");
      if (pods != nullptr && !pods->IsNull()) {
        if (!pods->IsArray())
          throw_type_error(*pods, std::string(type) + ".Pods",
                           meta ? "[]*v1.MetaPod" : "[]*v1.Pod");
        for (const Value& pod : pods->GetArray()) {
          if (pod.IsNull())
            continue;  // a nil pointer names no pod
          c.victims.push_back(meta ? meta_victim(pod) : full_victim(pod));
        }
      }
    }
    by_node.insert_or_assign(std::move(node), std::move(c));
  }
  std::vector<scheduling::PreemptionCandidate> out;
  out.reserve(by_node.size());
  for (auto& [node, c] : by_node)
    out.push_back(std::move(c));
  return out;
}

}  // namespace

ExtenderPreemptionArgs decode_preemption_args(std::string_view body) {
  ExtenderPreemptionArgs args;
  args.doc = std::make_unique<rapidjson::Document>();
  rapidjson::Document& doc = *args.doc;
  if (k8s::json_nests_deeper_than(body)) {
    throw DecodeError("request body nests JSON deeper than " + std::to_string(k8s::kMaxJsonDepth) +
                      " levels");
  }
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) {
    throw DecodeError("invalid JSON at offset " + std::to_string(doc.GetErrorOffset()) + ": " +
                      rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsObject())
    throw_value_type_error(doc, "v1.ExtenderPreemptionArgs");
  if (const Value* pod = member_named(doc, "Pod"); pod != nullptr && !pod->IsNull()) {
    if (!pod->IsObject())
      throw_type_error(*pod, "ExtenderPreemptionArgs.Pod", "v1.Pod");
    args.pod = pod;
  }
  const Value* full = member_named(doc, "NodeNameToVictims");
  const Value* meta = member_named(doc, "NodeNameToMetaVictims");
  if (meta != nullptr && !meta->IsNull()) {
    args.meta = true;
    args.candidates = candidates_of(*meta, true);
  } else if (full != nullptr && !full->IsNull()) {
    args.candidates = candidates_of(*full, false);
  }
  return args;
}

std::string encode_preemption_result(std::span<const scheduling::NodeVictims> nodes) {
  std::map<std::string_view, const scheduling::NodeVictims*> sorted;
  for (const scheduling::NodeVictims& n : nodes)
    sorted.insert_or_assign(n.node, &n);
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  const auto string = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("NodeNameToMetaVictims");
  w.StartObject();
  for (const auto& [name, n] : sorted) {
    string(name);
    w.StartObject();
    w.Key("Pods");
    w.StartArray();
    for (const std::string& uid : n->uids) {
      w.StartObject();
      w.Key("UID");
      string(uid);
      w.EndObject();
    }
    w.EndArray();
    w.Key("NumPDBViolations");
    w.Int64(n->pdb_violations);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace hami::extender
