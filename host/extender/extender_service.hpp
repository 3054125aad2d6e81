// ExtenderService: the extender verbs as body-in, body-out functions, and
// their HTTP routes.
//
//   POST /filter (alias /schedule, the seed's name) — ExtenderArgs →
//        ExtenderFilterResult. Always HTTP 200 with failures in `Error`
//        (an empty body is 400, as in HAMi). A request without Pod is an
//        error; a null NodeNames is an empty candidate list, not a crash
//        (HAMi bug 7.7#6). With full Nodes the reply fills Nodes.items with
//        the request's own Node objects, otherwise NodeNames. Pods without a
//        managed resource get the candidates back unchanged.
//   POST /prioritize — ExtenderArgs → HostPriorityList (scores 0..10). The
//        list has no error field: a body that cannot be read is HTTP 400
//        (kube-scheduler ignores a failing prioritize extender).
//   POST /bind — ExtenderBindingArgs → ExtenderBindingResult, HTTP 200.
//   POST /preemption — ExtenderPreemptionArgs → ExtenderPreemptionResult
//        (preemption_route.hpp).
//   GET /allocations — the allocation report (allocations_report.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "extender/node_object_cache.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::server {
class Router;
}

namespace hami::extender {

struct ExtenderArgs;

// The answer sent is `body` then every view of `tail`, which point into
// what `keep` owns (the request body, for echoed nodes).
struct Reply {
  Reply() = default;
  Reply(int status_, std::string body_) : status(status_), body(std::move(body_)) {}

  int status = 200;
  std::string body;
  std::vector<std::string_view> tail;
  std::shared_ptr<const void> keep;

  // body and tail as one string.
  std::string joined() const;
};

// Told what each verb decided, on the calling thread (metrics). A filter
// whose request could not be read reports an outcome with `error` set.
struct ExtenderObserver {
  std::function<void(const scheduling::FilterOutcome& outcome, size_t candidates)> filtered;
  std::function<void(std::string_view error)> bound;  // "" = success
  // After each full-Nodes filter or prioritize: how many of its Node
  // objects came from the node cache and how many were parsed, and what
  // the cache holds afterwards (entries, bytes counted against its budget).
  std::function<void(size_t cached, size_t parsed, size_t entries, size_t bytes)> full_nodes;
};

// Every filter and bind is logged with the pod (namespace/name), its uid,
// the node (bind) and duration_ms: filter at debug (info when it failed
// as a whole), bind at info (warn when it failed).
class ExtenderService {
 public:
  // What the node cache may hold by default (server.extenderNodeCacheBytes).
  static constexpr std::size_t kDefaultNodeCacheBytes = std::size_t{64} << 20;

  // `scheduler` (and `logger`, if set) must outlive the service. Full-Nodes
  // calls keep the Node objects they parse in a NodeObjectCache of
  // `node_cache_bytes` (0: none), so that later calls sending the same
  // objects do not parse them again.
  explicit ExtenderService(scheduling::Scheduler& scheduler, const log::Logger* logger = nullptr,
                           ExtenderObserver observer = {},
                           std::size_t node_cache_bytes = kDefaultNodeCacheBytes)
      : scheduler_(scheduler),
        logger_(logger),
        observer_(std::move(observer)),
        node_cache_(node_cache_bytes) {}

  const NodeObjectCache& node_cache() const { return node_cache_; }

  // The verbs on a body they copy; the reply is whole (`tail` empty).
  Reply filter(std::string_view body) const;
  Reply prioritize(std::string_view body) const;
  Reply bind(std::string_view body) const;

  // The verbs on a body they take. A full-Nodes filter reply echoes the
  // request's nodes as views into it (`tail`, owned through `keep`):
  // megabytes that are neither copied nor re-serialised.
  Reply filter_taking(std::string body) const;
  Reply prioritize_taking(std::string body) const;
  Reply bind_taking(std::string body) const;

 private:
  struct Trace;
  Reply run_filter(std::string body, Trace& trace) const;
  // Hands the nodes a full-Nodes call modelled to the cache.
  void remember_nodes(std::vector<NodeObjectCache::Fresh> fresh) const;
  // Tells the observer where a full-Nodes call's nodes came from.
  void report_full_nodes(const ExtenderArgs& args) const;

  scheduling::Scheduler& scheduler_;
  const log::Logger* logger_;
  ExtenderObserver observer_;
  // Internally synchronised; filled by const calls.
  mutable NodeObjectCache node_cache_;
};

// Adds POST /filter, /schedule, /prioritize, /bind, /preemption and GET
// /allocations.
// `scheduler` must outlive the router.
void register_extender_routes(
    server::Router& router, scheduling::Scheduler& scheduler, std::size_t body_limit,
    const log::Logger* logger = nullptr, ExtenderObserver observer = {},
    std::size_t node_cache_bytes = ExtenderService::kDefaultNodeCacheBytes);

}  // namespace hami::extender
