// The kube-scheduler extender wire types (k8s.io/kube-scheduler/extender/v1)
// as kube-scheduler speaks them: Go field names as keys (PascalCase, no json
// tags), read case-insensitively like Go's encoding/json (a later duplicate
// key wins), `null` for nil pointers, all keys always written.
//
// - ExtenderArgs (extender_args.hpp):
//   {"Pod": Pod|null, "Nodes": NodeList|null, "NodeNames": [string]|null}
// - ExtenderBindingArgs (binding_args.hpp):
//   {"PodName", "PodNamespace", "PodUID", "Node"}
// - ExtenderFilterResult, HostPriorityList, ExtenderBindingResult
//   (extender_replies.hpp):
//   {"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"},
//   [{"Host": string, "Score": int64}, ...], {"Error": string}
#pragma once

#include "extender/binding_args.hpp"
#include "extender/extender_args.hpp"
#include "extender/extender_replies.hpp"
#include "extender/go_json.hpp"
