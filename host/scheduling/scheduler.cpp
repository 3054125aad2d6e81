// Construction, the pod context of a request, events, and prioritize.
#include "scheduling/scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <utility>

#include "log/logger.hpp"
#include "platform/cpus.hpp"
#include "plugins/plugin_errors.hpp"
#include "scheduling/device_holds.hpp"
#include "scheduling/node_fit.hpp"
#include "scheduling/placement_scores.hpp"
#include "scheduling/pod_requests.hpp"
#include "scheduling/scheduler_internal.hpp"
#include "scheduling/scoring_weights.hpp"

namespace hami::scheduling {

std::optional<AllocateAt> parse_allocate_at(std::string_view text) {
  if (text == "bind")
    return AllocateAt::Bind;
  if (text == "filter")
    return AllocateAt::Filter;
  return std::nullopt;
}

Scheduler::Scheduler(cluster::ClusterState& cluster,
                     std::span<const host::DevicePluginHandle> devices,
                     std::span<const host::SchedulingPluginHandle> policies,
                     SchedulerOptions options)
    : cluster_(cluster),
      devices_(devices),
      policies_(policies, options.node_policy, options.gpu_policy),
      options_(std::move(options)),
      ledger_(devices.size()),
      locker_(
          cluster, [this] { return now(); }, options_.node_lock),
      // Helpers only where another CPU can run them: on a single usable CPU
      // they would take turns with the caller and add thread switches.
      pool_(options_.filter_workers.value_or(std::min<size_t>(3, platform::usable_cpus() - 1))) {
  lock_annotations_.push_back(options_.node_lock.annotation);
  for (const host::DevicePluginHandle& device : devices_) {
    const host::DeviceDescription& d = device.description();
    if (!d.takes_own_lock()) {
      own_lockers_.push_back(nullptr);
      continue;
    }
    cluster::NodeLockOptions own = options_.node_lock;
    own.annotation = d.own_lock_annotation;
    own.owner_in_value = false;
    own.expiry_seconds = d.own_lock_expiry_seconds;
    lock_annotations_.push_back(d.own_lock_annotation);
    own_lockers_.push_back(std::make_unique<cluster::NodeLocker>(
        cluster_, [this] { return now(); }, own));
  }
  cluster_.watch(*this);
  if (options_.initial_health_check)
    check_node_health();
}

Scheduler::~Scheduler() {
  cluster_.unwatch(*this);
}

int64_t Scheduler::now() const {
  if (options_.clock)
    return options_.clock();
  return static_cast<int64_t>(std::time(nullptr));
}

std::string Scheduler::pod_key(const hami_pod_view& pod) const {
  if (pod.uid.len > 0)
    return std::string(to_sv(pod.uid));
  // Requests without a uid: the cluster's pod of that name, if any.
  if (const auto record = cluster_.pod(to_sv(pod.namespace_), to_sv(pod.name)))
    return record->uid;
  return std::string(to_sv(pod.namespace_)) + "/" + std::string(to_sv(pod.name));
}

void Scheduler::event(const hami_pod_view& pod, bool warning, std::string_view reason,
                      std::string message) {
  cluster::Event e;
  e.namespace_ = to_sv(pod.namespace_);
  e.name = to_sv(pod.name);
  e.uid = to_sv(pod.uid);
  e.type = warning ? "Warning" : "Normal";
  e.reason = reason;
  e.message = std::move(message);
  e.component = options_.scheduler_name;
  cluster_.record_event(e);
}

void Scheduler::event(const cluster::PodRecord& pod, bool warning, std::string_view reason,
                      std::string message) {
  cluster::Event e;
  e.namespace_ = pod.namespace_;
  e.name = pod.name;
  e.uid = pod.uid;
  e.type = warning ? "Warning" : "Normal";
  e.reason = reason;
  e.message = std::move(message);
  e.component = options_.scheduler_name;
  cluster_.record_event(e);
}

std::optional<Scheduler::PodContext> Scheduler::pod_context(const hami_pod_view& pod,
                                                            std::string& error) const {
  PodContext ctx;
  ctx.pod = &pod;
  ctx.namespace_ = to_sv(pod.namespace_);
  ctx.name = to_sv(pod.name);
  try {
    ctx.requests = collect_requests(devices_, pod);
  } catch (const host::PluginCallError& e) {
    error = e.what();
    return std::nullopt;
  }
  // A value a device plugin cannot read would leave the pod without its
  // request, passing every node (HAMi 7.7#8): the call fails instead.
  if (!ctx.requests.warnings.empty()) {
    error.clear();
    for (const std::string& warning : ctx.requests.warnings)
      error += (error.empty() ? "" : "; ") + warning;
    return std::nullopt;
  }
  if (!ctx.requests.any)
    return ctx;
  ctx.key = pod_key(pod);
  if (const auto value = pod_annotation(pod, kDeviceScoringWeightsAnnotation)) {
    auto parsed = parse_scoring_weights(*value);
    if (auto* message = std::get_if<std::string>(&parsed)) {
      error = "calcScore failed " + *message + " for pod " + ctx.name;
      return std::nullopt;
    }
    ctx.weights = std::get<ScoringWeights>(parsed);
  }
  ctx.node_policy = policies_.node_policy(pod);
  ctx.device_policy = policies_.device_policy(pod);
  return ctx;
}

std::vector<HostScore> Scheduler::prioritize(const k8s::PodModel& pod,
                                             std::span<const std::string> node_names) {
  std::vector<HostScore> out;
  out.reserve(node_names.size());
  for (const std::string& name : node_names)
    out.push_back({name, 0});
  const hami_pod_view& view = pod.view();
  PodRequests requests;
  try {
    requests = collect_requests(devices_, view);
  } catch (const host::PluginCallError&) {
    return out;
  }
  if (!requests.any)
    return out;
  const PolicyChoice policy = policies_.node_policy(view);
  if (policy.plugin == nullptr)
    return out;
  // Vendors that score placements need the node's fit, as filter made it.
  std::optional<PodContext> ctx;
  if (scores_placements(devices_, requests)) {
    std::string error;
    ctx = pod_context(view, error);
  }
  const std::string key = pod_key(view);
  const auto snapshot = ledger_.read();
  const PodCharge* own = snapshot->pod(key);
  for (HostScore& h : out) {
    const NodeEntry* entry = snapshot->node(h.host);
    if (entry == nullptr || !entry->devices)
      continue;
    // The ledger's usage in place; a copy only to take the pod's own
    // earlier charge off (a per-node copy was most of a prioritize call).
    const NodeUse* usage_of = &entry->use;
    const NodeHolds* holds_of = &entry->holds;
    NodeUse adjusted;
    NodeHolds adjusted_holds;
    if (own != nullptr && own->on(h.host)) {
      adjusted = entry->use;
      adjusted_holds = entry->holds;
      subtract_charge(*entry->devices, adjusted, *own);
      subtract_holds(*entry->devices, adjusted_holds, *own);
      usage_of = &adjusted;
      holds_of = &adjusted_holds;
    }
    const NodeUse& usage = *usage_of;
    try {
      hami_node_usage summary = summarize_usage(*entry->devices, entry->healthy, usage);
      if (ctx) {
        const PodFitInput input = fit_input(*ctx, nullptr);
        const NodeFit fit = fit_node(input, *entry->devices, entry->healthy, usage, holds_of);
        std::string errors;
        if (fit.fits) {
          add_placement_scores(devices_, ctx->requests, view, policy.text, *entry->devices, usage,
                               fit, summary, errors);
        }
        if (!errors.empty() && options_.logger) {
          options_.logger->warn("vendor placement score failed",
                                {{"node", h.host}, {"error", errors}});
        }
      }
      const double score = policy.plugin->score_node(policy.text, view, summary);
      h.score = std::clamp<int64_t>(std::llround(score / 10.0), 0, 10);
    } catch (const host::PluginCallError&) {
      h.score = 0;
    }
  }
  return out;
}

}  // namespace hami::scheduling
