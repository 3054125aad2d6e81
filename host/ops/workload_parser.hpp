// The workload of `hami-scheduler simulate --workload FILE`: the pods to
// place, in order.
//
// Input: YAML (one or more documents) or JSON. Each document is an object
// or a sequence of objects; an object is
//   Pod                        one pod (metadata.name required)
//   Deployment                 spec.replicas pods (default 1) from
//                              spec.template, named <name>-<i>, i from 0
//   Job                        spec.parallelism pods (default 1), the same
//   List / <Kind>List          its items, each one of the above
// The namespace is the object's metadata.namespace, else "default"; a
// template's pods take the owner's namespace. Each pod keeps its labels,
// annotations and spec (the template's for an owner); everything else of
// its metadata (uid, resourceVersion, ...) and its status are dropped, and
// status.phase is Pending.
//
// Errors (WorkloadError, naming the origin, the document and the object):
// invalid YAML/JSON, an object of another kind, a missing name or
// template, replicas/parallelism not a whole number in 0..kMaxWorkloadPods,
// a pod the scheduler's pod model rejects (k8s::PodModel, with its JSON
// pointer), two pods of the same namespace/name, more than `max_pods` pods
// in all. An empty workload is valid.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hami::ops {

inline constexpr size_t kMaxWorkloadPods = 1'000'000;

class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// parse_workload with `pods_only`: an object that is not a Pod (nor a List
// of them). `where` names the origin, document and object as other errors
// do; `kind` is the object's kind ("" when it has none).
class NotAPodError : public WorkloadError {
 public:
  NotAPodError(const std::string& where, std::string kind)
      : WorkloadError(where + ": expected a Pod, not " +
                      (kind.empty() ? std::string("an object without a kind") : "a " + kind)),
        where_(where),
        kind_(std::move(kind)) {}
  const std::string& where() const { return where_; }
  const std::string& kind() const { return kind_; }

 private:
  std::string where_;
  std::string kind_;
};

struct WorkloadPod {
  std::string namespace_;
  std::string name;
  std::string json;  // the Pod object, compact, kind and apiVersion included
};

// `origin` names the text in messages (the file name). With `pods_only`,
// only Pods (and Lists of them) are accepted: anything else throws
// NotAPodError before any of its pods is made.
std::vector<WorkloadPod> parse_workload(std::string_view text, std::string_view origin,
                                        size_t max_pods = kMaxWorkloadPods, bool pods_only = false);

}  // namespace hami::ops
