// Field and label selectors of list and watch requests.
//   fieldSelector: field=value, field==value, field!=value; comma = AND.
//     Fields: metadata.name, metadata.namespace for every kind; for pods
//     also spec.nodeName, spec.schedulerName, spec.restartPolicy,
//     spec.serviceAccountName, spec.hostNetwork, status.phase, status.podIP,
//     status.nominatedNodeName; for nodes spec.unschedulable; for events
//     involvedObject.{kind,namespace,name,uid,apiVersion,resourceVersion,
//     fieldPath}, reason, type.
//   labelSelector: key=value, key==value, key!=value, key, !key; comma =
//     AND. Set forms (in, notin) are not supported (400).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fake_json.hpp"
#include "fake_kinds.hpp"

namespace hami::testing::fake {

class Selector {
 public:
  enum class Op { equals, not_equals, exists, not_exists };
  struct Term {
    std::string key;
    Op op = Op::equals;
    std::string value;
  };

  // nullopt with `error` set (the 400 message) when the text is invalid.
  static std::optional<Selector> parse_fields(std::string_view text, const KindInfo& kind,
                                              std::string& error);
  static std::optional<Selector> parse_labels(std::string_view text, std::string& error);

  bool empty() const { return terms_.empty(); }
  bool matches(const Json& object) const;

 private:
  bool labels_ = false;
  std::vector<Term> terms_;
};

}  // namespace hami::testing::fake
