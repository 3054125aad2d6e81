// The extender's replies: ExtenderFilterResult, HostPriorityList and
// ExtenderBindingResult, with every key written and nil as null.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hami::extender {

struct FilterResultOut {
  // Exactly one of these is written as non-null by the filter: the node
  // list (full Nodes mode; items are JSON values, copied verbatim) or the
  // names. Both null means "no node".
  const rapidjson::Value* nodes_list = nullptr;  // echo this NodeList as is
  std::optional<std::vector<const rapidjson::Value*>>
      node_items;  // write {"metadata":{},"items":[...]}
  // The same, each item given as raw JSON text (echoed byte for byte).
  std::optional<std::vector<std::string_view>> node_texts;
  // The text node_texts lie in (the request body), when they all do: two
  // texts that follow each other in it, with only whitespace and one comma
  // between them, are written as one slice of it, separator included.
  std::string_view node_texts_source;
  // The NodeList given as raw JSON text (echoed byte for byte).
  std::optional<std::string_view> nodes_text;
  std::optional<std::vector<std::string>> node_names;
  std::map<std::string, std::string> failed;        // null when empty
  std::map<std::string, std::string> unresolvable;  // null when empty
  std::string error;
};

std::string encode_filter_result(const FilterResultOut& result);

// The same text in three parts, so that megabytes of echoed nodes are sent
// from where they are instead of being copied into the reply: `head`, then
// every view in order (the raw texts given in the FilterResultOut and
// separators in static storage), then `trailer`.
struct EncodedFilterResult {
  std::string head;
  std::vector<std::string_view> views;
  std::string trailer;

  std::string joined() const;
};
EncodedFilterResult encode_filter_result_parts(const FilterResultOut& result);

struct HostPriority {
  std::string host;
  int64_t score = 0;
};
std::string encode_host_priority_list(const std::vector<HostPriority>& list);

std::string encode_binding_result(std::string_view error);

}  // namespace hami::extender
