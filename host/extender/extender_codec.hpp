// The kube-scheduler extender wire types (k8s.io/kube-scheduler/extender/v1)
// as kube-scheduler speaks them: Go field names as keys (PascalCase, no json
// tags), read case-insensitively like Go's encoding/json (a later duplicate
// key wins), `null` for nil pointers, all keys always written.
//
//   ExtenderArgs          {"Pod": Pod|null, "Nodes": NodeList|null, "NodeNames": [string]|null}
//   ExtenderFilterResult  {"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes",
//   "Error"} HostPriorityList      [{"Host": string, "Score": int64}, ...] ExtenderBindingArgs
//   {"PodName", "PodNamespace", "PodUID", "Node"} ExtenderBindingResult {"Error": string}
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hami::extender {

// A body that is not the expected type. The message reads like Go's
// encoding/json error, e.g.
//   json: cannot unmarshal string into Go struct field ExtenderArgs.NodeNames of type []string
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExtenderArgs {
  // Owns the parsed body; the pointers below point into it.
  rapidjson::Document doc;
  std::vector<char> buffer;  // the body, parsed in situ (a vector never moves its bytes)
  const rapidjson::Value* pod = nullptr;               // nullptr: missing or null
  const rapidjson::Value* nodes = nullptr;             // the NodeList; nullptr: missing or null
  std::vector<const rapidjson::Value*> node_items;     // Nodes.items
  std::optional<std::vector<std::string>> node_names;  // nullopt: missing or null
};

// Parses an ExtenderArgs body. Throws DecodeError.
ExtenderArgs decode_extender_args(std::string_view body);

// The text of each Nodes.items element inside `body` (the text `args` was
// decoded from), so a reply can echo the nodes byte for byte instead of
// re-serialising megabytes of them. nullopt when the positions cannot be
// established (callers then re-serialise).
std::optional<std::vector<std::string_view>> node_item_texts(const ExtenderArgs& args,
                                                             std::string_view body);

struct ExtenderBindingArgs {
  std::string pod_name;
  std::string pod_namespace;
  std::string pod_uid;
  std::string node;
};

// Throws DecodeError.
ExtenderBindingArgs decode_binding_args(std::string_view body);

struct FilterResultOut {
  // Exactly one of these is written as non-null by the filter: the node
  // list (full Nodes mode; items are JSON values, copied verbatim) or the
  // names. Both null means "no node".
  const rapidjson::Value* nodes_list = nullptr;  // echo this NodeList as is
  std::optional<std::vector<const rapidjson::Value*>>
      node_items;  // write {"metadata":{},"items":[...]}
  // The same, each item given as raw JSON text (echoed byte for byte).
  std::optional<std::vector<std::string_view>> node_texts;
  std::optional<std::vector<std::string>> node_names;
  std::map<std::string, std::string> failed;        // null when empty
  std::map<std::string, std::string> unresolvable;  // null when empty
  std::string error;
};

std::string encode_filter_result(const FilterResultOut& result);

struct HostPriority {
  std::string host;
  int64_t score = 0;
};
std::string encode_host_priority_list(const std::vector<HostPriority>& list);

std::string encode_binding_result(std::string_view error);

}  // namespace hami::extender
