// The preempt verb's wire types (k8s.io/kube-scheduler/extender/v1):
//
//   ExtenderPreemptionArgs
//     {"Pod": Pod|null,
//      "NodeNameToVictims":     {node: {"Pods": [Pod], "NumPDBViolations": int64}}|null,
//      "NodeNameToMetaVictims": {node: {"Pods": [{"UID": string}], "NumPDBViolations":
//      int64}}|null}
//   kube-scheduler fills NodeNameToMetaVictims when the extender is
//   nodeCacheCapable, NodeNameToVictims otherwise (the other one null).
//
//   ExtenderPreemptionResult
//     {"NodeNameToMetaVictims": {node: {"Pods": [{"UID": string}], "NumPDBViolations": int64}}}
//   always the meta form: the result type has no other field, and
//   kube-scheduler turns the UIDs back into its own pods.
//
// Keys are read case-insensitively as Go reads them (a later duplicate
// wins), null as the zero value; nodes are written in byte order, as Go
// writes a map.
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "extender/go_json.hpp"
#include "scheduling/preemption.hpp"

namespace hami::extender {

struct ExtenderPreemptionArgs {
  // Owns what `pod` points into.
  std::unique_ptr<rapidjson::Document> doc;
  const rapidjson::Value* pod = nullptr;  // nullptr: missing or null
  // The request came as NodeNameToMetaVictims (nodeCacheCapable).
  bool meta = false;
  // One per node, in byte order of the node names. From the full form,
  // each victim's rank is read from its pod (spec.priority,
  // status.startTime); the meta form has UIDs only.
  std::vector<scheduling::PreemptionCandidate> candidates;
};

// Throws DecodeError. When both maps are non-null the meta form is read.
ExtenderPreemptionArgs decode_preemption_args(std::string_view body);

// The ExtenderPreemptionResult of `nodes` (in byte order of their names).
std::string encode_preemption_result(std::span<const scheduling::NodeVictims> nodes);

}  // namespace hami::extender
