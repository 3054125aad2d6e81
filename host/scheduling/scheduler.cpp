#include "scheduling/scheduler.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

#include "log/logger.hpp"
#include "platform/cpus.hpp"
#include "plugins/plugin_errors.hpp"
#include "scheduling/allocation.hpp"
#include "scheduling/node_fit.hpp"
#include "scheduling/pod_requests.hpp"
#include "scheduling/quota_limits.hpp"
#include "scheduling/scoring_weights.hpp"

namespace hami::scheduling {

namespace {

std::string_view sv(hami_str s) {
  return {s.ptr, s.len};
}

std::optional<std::string_view> pod_annotation(const hami_pod_view& pod, std::string_view key) {
  for (size_t i = 0; i < pod.annotations_len; ++i) {
    if (sv(pod.annotations[i].key) == key)
      return sv(pod.annotations[i].value);
  }
  return std::nullopt;
}

// Whether resourceVersion `a` is newer than `b`: decimal texts (what the
// API server and the file backend write) compare as numbers; others only
// as different.
bool newer_version(std::string_view a, std::string_view b) {
  const auto decimal = [](std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (decimal(a) && decimal(b))
    return a.size() != b.size() ? a.size() > b.size() : a > b;
  return a != b;
}

// Go's %.2f.
void append_score(std::string& out, double score) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, score, std::chars_format::fixed, 2);
  out.append(buf, res.ptr);
}

// HAMi's common.ParseReason: the "<n>/<m> <Reason>" entries of a fit reason.
std::vector<std::string> reason_codes(std::string_view reason) {
  std::vector<std::string> codes;
  size_t start = 0;
  while (start <= reason.size()) {
    size_t end = reason.find(", ", start);
    if (end == std::string_view::npos)
      end = reason.size();
    const std::string_view entry = reason.substr(start, end - start);
    const size_t space = entry.find(' ');
    const size_t slash = entry.find('/');
    const auto digits = [](std::string_view s) {
      return !s.empty() &&
             std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (space != std::string_view::npos && slash != std::string_view::npos && slash < space &&
        digits(entry.substr(0, slash)) && digits(entry.substr(slash + 1, space - slash - 1)) &&
        space + 1 < entry.size()) {
      codes.emplace_back(entry.substr(space + 1));
    }
    start = end + 2;
  }
  return codes;
}

// Go's time.Duration text: whole seconds as "28s" / "1m0s", shorter spans
// as "300ms" (config durations are whole seconds; tests use less).
std::string go_duration_ms(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0 || d >= std::chrono::seconds(1))
    return cluster::go_duration(std::chrono::duration_cast<std::chrono::seconds>(d).count());
  return std::to_string(d.count()) + "ms";
}

}  // namespace

std::optional<AllocateAt> parse_allocate_at(std::string_view text) {
  if (text == "bind")
    return AllocateAt::Bind;
  if (text == "filter")
    return AllocateAt::Filter;
  return std::nullopt;
}

struct Scheduler::Candidate {
  std::string name;
  const k8s::NodeModel* node = nullptr;   // full Nodes mode only
  const NodeDevicesMemo* memo = nullptr;  // full Nodes mode, optional
};

struct Scheduler::PodContext {
  const hami_pod_view* pod = nullptr;
  std::string key;  // ledger key: the uid
  std::string namespace_;
  std::string name;
  PodRequests requests;
  ScoringWeights weights;
  PolicyChoice node_policy;
  PolicyChoice device_policy;
};

struct Scheduler::Reservation {
  std::vector<VendorAllocation> allocations;
};

namespace {

// The namespace quota for fit: limits, and every other pod's usage.
std::optional<QuotaContext> quota_context(const LedgerState& state,
                                          std::span<const host::DevicePluginHandle> plugins,
                                          std::string_view ns, const PodCharge* own) {
  const auto* limits = state.namespace_limits(ns);
  if (limits == nullptr)
    return std::nullopt;
  QuotaContext q;
  q.limits = *limits;
  q.used.assign(plugins.size(), {});
  if (const auto* used = state.namespace_used(ns))
    q.used = *used;
  if (own != nullptr && own->namespace_ == ns) {
    const auto mine = own->totals(plugins.size());
    for (size_t v = 0; v < plugins.size(); ++v) {
      q.used[v].memory_mib = std::max<int64_t>(0, q.used[v].memory_mib - mine[v].memory_mib);
      q.used[v].cores = std::max<int64_t>(0, q.used[v].cores - mine[v].cores);
    }
  }
  for (const auto& p : plugins)
    q.memory_factor.push_back(p.description().memory_factor);
  return q;
}

// Usage of `devices` from the charges the ledger holds for the node (used
// when the devices come from a request's Node object rather than the cache).
NodeUse usage_for(const LedgerState& state, const NodeEntry* entry, const NodeDevices& devices) {
  NodeUse use(state.vendor_count());
  for (size_t v = 0; v < use.size() && v < devices.vendors().size(); ++v) {
    use[v].assign(devices.vendors()[v].size(), DeviceUse{});
  }
  if (entry == nullptr)
    return use;
  for (const std::string& uid : entry->pods) {
    const PodCharge* charge = state.pod(uid);
    if (charge == nullptr)
      continue;
    for (const DeviceCharge& d : charge->devices) {
      if (d.vendor >= use.size())
        continue;
      const size_t k = devices.vendors()[d.vendor].find(d.device_id);
      if (k == NodeDevices::npos)
        continue;
      use[d.vendor][k].used += d.slots;
      use[d.vendor][k].memory_mib += d.memory_mib;
      use[d.vendor][k].cores += d.cores;
    }
  }
  return use;
}

}  // namespace

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
    return std::string(sv(pod.uid));
  // Requests without a uid: the cluster's pod of that name, if any.
  if (const auto record = cluster_.pod(sv(pod.namespace_), sv(pod.name)))
    return record->uid;
  return std::string(sv(pod.namespace_)) + "/" + std::string(sv(pod.name));
}

void Scheduler::event(const hami_pod_view& pod, bool warning, std::string_view reason,
                      std::string message) {
  cluster::Event e;
  e.namespace_ = sv(pod.namespace_);
  e.name = sv(pod.name);
  e.uid = sv(pod.uid);
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
  ctx.namespace_ = sv(pod.namespace_);
  ctx.name = sv(pod.name);
  try {
    ctx.requests = collect_requests(devices_, pod);
  } catch (const host::PluginCallError& e) {
    error = e.what();
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

FilterOutcome Scheduler::filter(const k8s::PodModel& pod, std::span<const std::string> node_names) {
  std::vector<Candidate> candidates;
  candidates.reserve(node_names.size());
  for (const std::string& name : node_names)
    candidates.push_back({name, nullptr});
  return run_filter(pod.view(), candidates);
}

FilterOutcome Scheduler::filter(const k8s::PodModel& pod,
                                std::span<const k8s::NodeModel* const> nodes) {
  return filter(pod, nodes, {});
}

FilterOutcome Scheduler::filter(const k8s::PodModel& pod,
                                std::span<const k8s::NodeModel* const> nodes,
                                std::span<const NodeDevicesMemo* const> memos) {
  if (!memos.empty() && memos.size() != nodes.size())
    throw std::invalid_argument("filter: one memo per node, or none");
  std::vector<Candidate> candidates;
  candidates.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    candidates.push_back(
        {std::string(nodes[i]->name()), nodes[i], memos.empty() ? nullptr : memos[i]});
  return run_filter(pod.view(), candidates);
}

FilterOutcome Scheduler::run_filter(const hami_pod_view& pod, std::vector<Candidate>& candidates) {
  FilterOutcome out;
  if (options_.gate) {
    // A closed gate (follower, cache not synced) answers before anything is
    // read or written: the view may be stale and only the leader writes.
    if (std::string closed = options_.gate(); !closed.empty()) {
      out.error = std::move(closed);
      return out;
    }
  }
  std::string error;
  const auto ctx = pod_context(pod, error);
  if (!ctx) {
    out.error = error;
    event(pod, true, "FilteringFailed", error);
    return out;
  }
  if (!ctx->requests.any) {
    out.passthrough = true;
    return out;
  }

  struct Fitting {
    size_t index;
    double score;
  };
  // What one participant of the walk found, merged in candidate order.
  struct Partial {
    FitScratch scratch;
    std::vector<Fitting> fitting;
    std::vector<std::pair<size_t, std::string>> failed;
    std::vector<std::pair<size_t, std::string>> unresolvable;
  };
  std::vector<Fitting> fitting;
  {
    const auto snapshot = ledger_.read();
    const PodCharge* own = snapshot->pod(ctx->key);
    const auto quota = quota_context(*snapshot, devices_, ctx->namespace_, own);
    PodFitInput input;
    input.pod = &pod;
    input.requests = &ctx->requests;
    input.plugins = devices_;
    input.weights = ctx->weights;
    input.device_policy = ctx->device_policy.text;
    input.device_plugin = ctx->device_policy.plugin;
    input.quota = quota ? &*quota : nullptr;
    // Filtering needs only the verdict; a reservation re-fits with devices.
    input.record_placements = false;
    const std::vector<bool> all_healthy(devices_.size(), true);
    // All lookups first, in a tight loop: each is a few dependent cache
    // misses, and back to back the processor overlaps them; interleaved with
    // the fits they were an eighth to a sixth of a NodeNames call.
    std::vector<const NodeEntry*> entries(candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i)
      entries[i] = snapshot->node(candidates[i].name);

    const auto evaluate = [&](size_t i, Partial& part) {
      const Candidate& cand = candidates[i];
      const NodeEntry* entry = entries[i];
      std::shared_ptr<const NodeDevices> fresh;
      const NodeDevices* devices = nullptr;
      const NodeUse* base = nullptr;
      NodeUse adjusted;
      try {
        // A memo's decode is clean: the same as decoding the node again,
        // whatever the ledger's entry held before.
        std::shared_ptr<const NodeDevices> kept = cand.memo ? cand.memo->get() : nullptr;
        const auto ledger_has_it = [&] {
          if (entry == nullptr || !entry->devices)
            return false;
          const uint64_t given =
              kept ? kept->source_fingerprint() : NodeDevices::fingerprint(devices_, *cand.node);
          return entry->devices->source_fingerprint() == given;
        };
        if (cand.node != nullptr && !ledger_has_it()) {
          if (kept) {
            fresh = std::move(kept);
          } else {
            fresh = NodeDevices::decode(devices_, *cand.node,
                                        entry != nullptr ? entry->devices.get() : nullptr);
            if (cand.memo)
              cand.memo->keep(fresh);
          }
          devices = fresh.get();
          adjusted = usage_for(*snapshot, entry, *devices);
          base = &adjusted;
        } else if (entry != nullptr && entry->devices) {
          devices = entry->devices.get();
          base = &entry->use;
        }
        if (devices == nullptr || !devices->registered()) {
          part.unresolvable.emplace_back(i, kNodeUnregistered);
          return;
        }
        if (own != nullptr && own->on(cand.name)) {
          if (base != &adjusted)
            adjusted = *base;
          subtract_charge(*devices, adjusted, *own);
          base = &adjusted;
        }
        const std::vector<bool>& healthy = entry != nullptr ? entry->healthy : all_healthy;
        NodeFit fit = fit_node(input, *devices, healthy, *base, part.scratch);
        if (!fit.fits) {
          (fit.unresolvable ? part.unresolvable : part.failed)
              .emplace_back(i, std::move(fit.reason));
          return;
        }
        double score = 0;
        if (ctx->node_policy.plugin != nullptr) {
          score = ctx->node_policy.plugin->score_node(ctx->node_policy.text, pod,
                                                      summarize_usage(*devices, healthy, *base));
        }
        part.fitting.push_back({i, score});
      } catch (const std::exception& e) {
        part.failed.emplace_back(i, e.what());
      }
    };

    // Large candidate lists are walked in chunks by the caller and idle pool
    // workers; each participant keeps its own scratch and findings.
    constexpr size_t kChunk = 128;
    const size_t chunks = (candidates.size() + kChunk - 1) / kChunk;
    std::vector<Partial> parts(chunks > 1 ? pool_.slots() : 1);
    pool_.run(chunks, [&](size_t chunk, size_t slot) {
      const size_t end = std::min(candidates.size(), (chunk + 1) * kChunk);
      for (size_t i = chunk * kChunk; i < end; ++i)
        evaluate(i, parts[slot]);
    });
    for (Partial& part : parts) {
      fitting.insert(fitting.end(), part.fitting.begin(), part.fitting.end());
      for (auto& [i, reason] : part.failed)
        out.failed[candidates[i].name] = std::move(reason);
      for (auto& [i, reason] : part.unresolvable) {
        out.unresolvable[candidates[i].name] = std::move(reason);
      }
    }
    std::sort(fitting.begin(), fitting.end(),
              [](const Fitting& a, const Fitting& b) { return a.index < b.index; });
  }

  if (fitting.empty()) {
    std::map<std::string, std::vector<std::string>> by_reason;
    for (const auto* reasons : {&out.failed, &out.unresolvable}) {
      for (const auto& [node, reason] : *reasons) {
        for (std::string& code : reason_codes(reason))
          by_reason[code].push_back(node);
      }
    }
    for (auto& [code, nodes] : by_reason) {
      std::sort(nodes.begin(), nodes.end());
      std::string list;
      for (const std::string& n : nodes)
        list += (list.empty() ? "" : ",") + n;
      event(pod, true, "FilteringFailed",
            std::to_string(nodes.size()) + " nodes " + code + "(" + list + ")");
    }
    event(pod, true, "FilteringFailed",
          "no available node, " + std::to_string(candidates.size()) + " nodes do not meet");
    return out;
  }

  // Best: the highest score, the earlier candidate winning ties.
  const Fitting& best =
      *std::max_element(fitting.begin(), fitting.end(),
                        [](const Fitting& a, const Fitting& b) { return a.score < b.score; });
  const auto success_message = [&](const std::string& target) {
    std::string scores;
    scores.reserve(fitting.size() * 24);
    for (const Fitting& f : fitting) {
      if (!scores.empty())
        scores += ',';
      scores += candidates[f.index].name;
      scores += ':';
      append_score(scores, f.score);
    }
    return "find fit node(" + target + "), " + std::to_string(candidates.size() - fitting.size()) +
           " nodes not fit, " + std::to_string(fitting.size()) + " nodes fit(" + scores + ")";
  };

  if (options_.allocate_at == AllocateAt::Bind) {
    for (const Fitting& f : fitting)
      out.fit.push_back(f.index);
    event(pod, false, "FilteringSucceed", success_message(candidates[best.index].name));
    return out;
  }

  // allocateAt: filter — reserve on the best node that still fits against
  // live usage (trying the next best when a concurrent reservation took the
  // room), then write the allocation.
  // The allocation is written to the pod as stored now, under the same
  // preconditions as a bind's.
  std::shared_ptr<const cluster::PodRecord> target;
  try {
    target = cluster_.pod(ctx->namespace_, ctx->name);
    if (!target || (pod.uid.len > 0 && target->uid != sv(pod.uid)))
      target = cluster_.pod_live(ctx->namespace_, ctx->name);
  } catch (const cluster::ClusterError& e) {
    out.error = e.what();
    event(pod, true, "FilteringFailed", out.error);
    return out;
  }
  std::string refusal;
  if (!target) {
    refusal = "pod \"" + ctx->name + "\" not found";
  } else if (pod.uid.len > 0 && target->uid != sv(pod.uid)) {
    refusal = "Precondition failed: UID in precondition: " + std::string(sv(pod.uid)) +
              ", UID in object meta: " + target->uid;
  } else {
    refusal = pod_refusal(*target);
  }
  if (!refusal.empty()) {
    out.error = refusal;
    event(pod, true, "FilteringFailed", out.error);
    return out;
  }
  std::vector<Fitting> ranked = fitting;
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Fitting& a, const Fitting& b) { return a.score > b.score; });
  for (const Fitting& f : ranked) {
    const std::string& node = candidates[f.index].name;
    std::string reason;
    const auto reservation = reserve(*ctx, node, reason);
    if (!reservation) {
      out.failed[node] = reason;
      continue;
    }
    cluster::PodMetadataPatch patch;
    try {
      patch.annotations = allocation_annotations(devices_, reservation->allocations);
    } catch (const host::PluginCallError& e) {
      release(ctx->key);
      out.error = e.what();
      event(pod, true, "FilteringFailed", out.error);
      return out;
    }
    patch.annotations.push_back({std::string(kAssignedNodeAnnotation), node});
    patch.annotations.push_back({std::string(kAssignedTimeAnnotation), std::to_string(now())});
    patch.labels.push_back({std::string(kAssignedNodeAnnotation), node});
    PodWrite write = plan_write(*target, std::move(patch));
    write.patch.expect_resource_version = target->resource_version;
    const auto kept = std::make_shared<const PodWrite>(write);
    attach_write(ctx->key, kept);
    std::string write_error;
    const WriteOutcome outcome = write_pod(*target, write.patch, write_error);
    if (outcome != WriteOutcome::stored) {
      // Perhaps stored: taken back if it can be; an unconfirmed
      // reservation if that cannot be known either.
      const WriteOutcome undone =
          outcome == WriteOutcome::unknown ? undo_write(*target, write) : WriteOutcome::not_stored;
      if (undone == WriteOutcome::unknown)
        mark_unconfirmed(ctx->key, write);
      else
        release(ctx->key);
      out.error = write_error;
      event(pod, true, "FilteringFailed", out.error);
      return out;
    }
    out.fit.push_back(f.index);
    event(pod, false, "FilteringSucceed", success_message(node));
    return out;
  }
  event(pod, true, "FilteringFailed",
        "no available node, " + std::to_string(candidates.size()) + " nodes do not meet");
  return out;
}

std::optional<Scheduler::Reservation> Scheduler::reserve(const PodContext& ctx,
                                                         std::string_view node,
                                                         std::string& reason) {
  auto txn = ledger_.write();
  const NodeEntry* entry = txn->node(node);
  if (entry == nullptr || !entry->devices || !entry->devices->registered()) {
    reason = std::string(kNodeUnregistered);
    return std::nullopt;
  }
  const PodCharge* own = txn->pod(ctx.key);
  NodeUse usage = entry->use;
  if (own != nullptr && own->on(node))
    subtract_charge(*entry->devices, usage, *own);
  const auto quota = quota_context(*txn, devices_, ctx.namespace_, own);
  PodFitInput input;
  input.pod = ctx.pod;
  input.requests = &ctx.requests;
  input.plugins = devices_;
  input.weights = ctx.weights;
  input.device_policy = ctx.device_policy.text;
  input.device_plugin = ctx.device_policy.plugin;
  input.quota = quota ? &*quota : nullptr;
  NodeFit fit;
  try {
    fit = fit_node(input, *entry->devices, entry->healthy, usage);
  } catch (const host::PluginCallError& e) {
    reason = e.what();
    return std::nullopt;
  }
  if (!fit.fits) {
    reason = std::move(fit.reason);
    return std::nullopt;
  }
  Reservation r;
  r.allocations = allocations_from_fit(fit, ctx.requests);
  PodCharge charge;
  charge.uid = ctx.key;
  charge.namespace_ = ctx.namespace_;
  charge.name = ctx.name;
  charge.node = std::string(node);
  charge.devices = collapse(r.allocations, ctx.requests.init_count, false);
  charge.reservation = true;
  // What the pod carries now keeps counting until this reservation's write
  // replaces it: if that write fails, the pod still holds it.
  if (own != nullptr) {
    charge.held_node = own->reservation ? own->held_node : own->node;
    charge.held_devices = own->reservation ? own->held_devices : own->devices;
  }
  txn->put_pod(std::move(charge));
  return r;
}

void Scheduler::release(std::string_view key) {
  if (key.empty())
    return;
  auto txn = ledger_.write();
  const PodCharge* existing = txn->pod(key);
  if (existing == nullptr)
    return;
  // The reservation goes, but an allocation the pod still carries (an
  // earlier attempt whose removal failed) keeps counting: the annotations
  // are the source of truth. The pod is read and decoded under the
  // transaction so that a newer version delivered meanwhile lands after
  // this; failed binds are rare enough for readers to wait on that.
  const auto pod = cluster_.pod(existing->namespace_, existing->name);
  if (pod && pod->uid == key) {
    if (const auto allocations = pod_allocations(*pod)) {
      txn->put_pod(annotated_charge(*pod, *allocations, existing));
      return;
    }
  }
  txn->remove_pod(key);
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
  const std::string key = pod_key(view);
  const auto snapshot = ledger_.read();
  const PodCharge* own = snapshot->pod(key);
  for (HostScore& h : out) {
    const NodeEntry* entry = snapshot->node(h.host);
    if (entry == nullptr || !entry->devices)
      continue;
    NodeUse usage = entry->use;
    if (own != nullptr && own->on(h.host))
      subtract_charge(*entry->devices, usage, *own);
    try {
      const double score = policy.plugin->score_node(
          policy.text, view, summarize_usage(*entry->devices, entry->healthy, usage));
      h.score = std::clamp<int64_t>(std::llround(score / 10.0), 0, 10);
    } catch (const host::PluginCallError&) {
      h.score = 0;
    }
  }
  return out;
}

std::string Scheduler::pod_refusal(const cluster::PodRecord& pod) const {
  const std::string who = "pod " + pod.namespace_ + "/" + pod.name;
  if (!pod.node_name.empty())
    return who + " is already assigned to node \"" + pod.node_name + "\"";
  if (pod.terminating)
    return who + " is being deleted";
  if (!pod.phase.empty() && pod.phase != "Pending")
    return who + " is not pending (phase " + pod.phase + ")";
  const std::string_view scheduler = sv(pod.model->view().scheduler_name);
  if (!scheduler.empty() && scheduler != options_.scheduler_name) {
    return who + " is for scheduler \"" + std::string(scheduler) + "\", not \"" +
           options_.scheduler_name + "\"";
  }
  return {};
}

std::string Scheduler::bind_refusal(const cluster::PodRecord& pod, std::string_view node) const {
  if (std::string refusal = pod_refusal(pod); !refusal.empty())
    return refusal;
  // allocateAt filter: filter chose the node and wrote its devices; a bind
  // elsewhere would start the pod on devices of another node.
  if (options_.allocate_at == AllocateAt::Filter) {
    if (const auto assigned = pod.annotation(kAssignedNodeAnnotation);
        assigned && !assigned->empty() && *assigned != node) {
      return "pod " + pod.namespace_ + "/" + pod.name + " was allocated devices on node \"" +
             std::string(*assigned) + "\" by filter, not on \"" + std::string(node) + "\"";
    }
  }
  return {};
}

bool Scheduler::unconfirmed(std::string_view key) const {
  const auto snapshot = ledger_.read();
  const PodCharge* charge = snapshot->pod(key);
  return charge != nullptr && charge->reservation && charge->write && charge->write->unconfirmed;
}

Scheduler::WriteOutcome Scheduler::write_pod(const cluster::PodRecord& pod,
                                             const cluster::PodMetadataPatch& patch,
                                             std::string& error) {
  try {
    cluster_.patch_pod_metadata(pod.namespace_, pod.name, patch, pod.uid);
    return WriteOutcome::stored;
  } catch (const cluster::ClusterError& e) {
    error = e.what();
    if (!e.maybe_stored())
      return WriteOutcome::not_stored;
  }
  // A 5xx or a timeout: the pod, read back, says whether it was stored.
  try {
    const auto now_pod = cluster_.pod_live(pod.namespace_, pod.name);
    if (!now_pod || now_pod->uid != pod.uid)
      return WriteOutcome::not_stored;
    return cluster::carries(*now_pod, patch) ? WriteOutcome::stored : WriteOutcome::not_stored;
  } catch (const cluster::ClusterError& e) {
    if (options_.logger) {
      options_.logger->warn("pod read back after a failed write failed",
                            {{"pod", pod.namespace_ + "/" + pod.name}, {"error", e.what()}});
    }
    return WriteOutcome::unknown;
  }
}

PodWrite Scheduler::plan_write(const cluster::PodRecord& before, cluster::PodMetadataPatch patch) {
  PodWrite write;
  write.judged_version = before.resource_version;
  // Per key: expect what is written, restore what was there.
  const auto plan = [&](const std::vector<cluster::MetadataWrite>& writes, bool labels,
                        cluster::KeyValues& expect, std::vector<cluster::MetadataWrite>& restore) {
    for (const auto& w : writes) {
      if (w.value)
        expect.emplace_back(w.key, *w.value);
      const auto prior = labels ? before.label(w.key) : before.annotation(w.key);
      restore.push_back(
          {w.key, prior ? std::optional<std::string>(std::string(*prior)) : std::nullopt});
    }
  };
  plan(patch.annotations, false, write.undo.expect_annotations, write.undo.annotations);
  plan(patch.labels, true, write.undo.expect_labels, write.undo.labels);
  write.patch = std::move(patch);
  return write;
}

namespace {

// `undo` less the keys `pod` no longer holds as the write left them.
cluster::PodMetadataPatch still_as_written(const cluster::PodMetadataPatch& undo,
                                           const cluster::PodRecord& pod) {
  cluster::PodMetadataPatch left;
  const auto keep = [&](const cluster::KeyValues& expected,
                        const std::vector<cluster::MetadataWrite>& restores, bool labels,
                        cluster::KeyValues& kept_expected,
                        std::vector<cluster::MetadataWrite>& kept_restores) {
    for (const cluster::MetadataWrite& r : restores) {
      const auto it = std::find_if(expected.begin(), expected.end(),
                                   [&](const auto& kv) { return kv.first == r.key; });
      const auto now_value = labels ? pod.label(r.key) : pod.annotation(r.key);
      // A key the write removed (no expectation) is restored only while
      // it is still absent.
      const bool unchanged =
          it != expected.end() ? (now_value && *now_value == it->second) : !now_value;
      if (!unchanged)
        continue;
      kept_restores.push_back(r);
      if (it != expected.end())
        kept_expected.push_back(*it);
    }
  };
  keep(undo.expect_annotations, undo.annotations, false, left.expect_annotations, left.annotations);
  keep(undo.expect_labels, undo.labels, true, left.expect_labels, left.labels);
  return left;
}

}  // namespace

Scheduler::WriteOutcome Scheduler::undo_write(const cluster::PodRecord& pod,
                                              const PodWrite& write) {
  cluster::PodMetadataPatch undo = write.undo;
  // Twice at most: after a failed precondition (someone changed one of the
  // keys since), the keys still as written are taken back.
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      cluster_.patch_pod_metadata(pod.namespace_, pod.name, undo, pod.uid);
      return WriteOutcome::stored;
    } catch (const cluster::ClusterError& e) {
      if (e.kind() == cluster::ErrorKind::NotFound)
        return WriteOutcome::not_stored;
      if (e.kind() != cluster::ErrorKind::Conflict || attempt > 0) {
        if (options_.logger) {
          options_.logger->warn("taking back a pod write failed",
                                {{"pod", pod.namespace_ + "/" + pod.name}, {"error", e.what()}});
        }
        // A precondition failing again: what is left is not as written.
        if (e.kind() == cluster::ErrorKind::Conflict || !e.maybe_stored())
          return WriteOutcome::not_stored;
        return WriteOutcome::unknown;
      }
    }
    std::shared_ptr<const cluster::PodRecord> now_pod;
    try {
      now_pod = cluster_.pod_live(pod.namespace_, pod.name);
    } catch (const cluster::ClusterError&) {
      return WriteOutcome::unknown;
    }
    if (!now_pod || now_pod->uid != pod.uid)
      return WriteOutcome::not_stored;
    undo = still_as_written(write.undo, *now_pod);
    if (undo.annotations.empty() && undo.labels.empty())
      return WriteOutcome::not_stored;
  }
  return WriteOutcome::not_stored;
}

void Scheduler::attach_write(std::string_view key, std::shared_ptr<const PodWrite> write) {
  auto txn = ledger_.write();
  const PodCharge* existing = txn->pod(key);
  if (existing == nullptr || !existing->reservation)
    return;
  PodCharge kept = *existing;
  kept.write = std::move(write);
  txn->put_pod(std::move(kept));
}

void Scheduler::mark_unconfirmed(std::string_view key, const PodWrite& write) {
  auto txn = ledger_.write();
  const PodCharge* existing = txn->pod(key);
  if (existing == nullptr || !existing->reservation)
    return;
  PodCharge kept = *existing;
  auto unsure = std::make_shared<PodWrite>(write);
  unsure->unconfirmed = true;
  kept.write = std::move(unsure);
  txn->put_pod(std::move(kept));
}

std::string Scheduler::bind(std::string_view namespace_, std::string_view name,
                            std::string_view uid, std::string_view node) {
  if (options_.gate) {
    if (std::string closed = options_.gate(); !closed.empty())
      return closed;
  }
  auto pod = cluster_.pod(namespace_, name);
  // The cache may not show where a write of unknown outcome went, nor a
  // pod created a moment ago: the pod is read live then.
  if (!pod || (!uid.empty() && pod->uid != uid) || unconfirmed(pod->uid)) {
    try {
      pod = cluster_.pod_live(namespace_, name);
    } catch (const cluster::ClusterError& e) {
      return "pod \"" + std::string(name) + "\" could not be read: " + e.what();
    }
  }
  if (!pod) {
    // Nothing runs for a pod that does not exist: its reservation goes.
    release(uid.empty() ? std::string(namespace_) + "/" + std::string(name) : std::string(uid));
    return "pod \"" + std::string(name) + "\" not found";
  }
  // Preconditions, all judged before anything is written; a refusal
  // changes nothing.
  if (!uid.empty() && pod->uid != uid) {
    return "Precondition failed: UID in precondition: " + std::string(uid) +
           ", UID in object meta: " + pod->uid;
  }
  const std::string key = pod->uid;
  // A retried bind (kube-scheduler timed out waiting for the first answer)
  // finds the pod already bound here: done, and nothing is rewritten (the
  // node-side plugin may be reading the allocation).
  if (pod->node_name == node)
    return "";
  if (std::string refusal = bind_refusal(*pod, node); !refusal.empty()) {
    event(*pod, true, "BindingFailed", refusal);
    return refusal;
  }
  if (!cluster_.node(node)) {
    event(*pod, true, "BindingFailed", "failed to get node " + std::string(node));
    return "node \"" + std::string(node) + "\" not found";
  }
  const hami_pod_view& view = pod->model->view();
  std::string error;
  const auto ctx = pod_context(view, error);
  if (!ctx) {
    event(*pod, true, "BindingFailed", error);
    return error;
  }

  const auto succeed = [&] {
    event(*pod, false, "BindingSucceed",
          "Successfully binding node [" + std::string(node) + "] to " + std::string(namespace_) +
              "/" + std::string(name));
    return std::string();
  };
  if (!ctx->requests.any) {
    try {
      cluster_.bind(namespace_, name, key, node);
    } catch (const cluster::ClusterError& e) {
      event(*pod, true, "BindingFailed", e.what());
      return e.what();
    }
    return succeed();
  }
  return bind_devices(*pod, *ctx, node, succeed);
}

std::string Scheduler::bind_devices(const cluster::PodRecord& pod, const PodContext& ctx,
                                    std::string_view node,
                                    const std::function<std::string()>& succeed) {
  const std::string& key = pod.uid;
  bool locked = false;
  // The writes this attempt made, each of which a failure takes back: in
  // filter mode also the allocation filter wrote (held by the
  // reservation), in bind mode the one written below.
  std::shared_ptr<const PodWrite> filter_write;
  if (options_.allocate_at == AllocateAt::Filter) {
    const auto snapshot = ledger_.read();
    if (const PodCharge* charge = snapshot->pod(key))
      filter_write = charge->write;
  }
  std::optional<PodWrite> written;
  // Whether the reservation may be dropped: false while a write of this
  // attempt may be stored and could not be taken back.
  bool settled = true;
  const auto take_back = [&](const PodWrite& write) {
    const WriteOutcome undone = undo_write(pod, write);
    if (undone == WriteOutcome::unknown) {
      mark_unconfirmed(key, write);
      settled = false;
    }
  };
  const auto fail = [&](std::string message, bool binding_unknown = false) {
    // A Binding of unknown outcome may have bound the pod with its
    // allocation: nothing is taken back, and the node lock stays for the
    // node-side plugin (it expires otherwise). The pod's next version, or
    // the next bind (which reads it live), settles it.
    if (!binding_unknown) {
      if (written)
        take_back(*written);
      if (filter_write)
        take_back(*filter_write);
      if (locked) {
        try {
          locker_.release(node, pod.namespace_, pod.name);
        } catch (const std::exception& e) {
          if (options_.logger)
            options_.logger->warn("node lock release failed",
                                  {{"node", std::string(node)}, {"error", e.what()}});
        }
      }
      if (settled)
        release(key);
    }
    event(pod, true, "BindingFailed", message);
    return message;
  };

  // The lock is taken for every pod with a managed request, init-only GPU
  // pods included (HAMi bug 7.7#5 skipped them).
  try {
    lock_node(node, pod);
    locked = true;
  } catch (const cluster::NodeLockError& e) {
    return fail(e.what());
  } catch (const cluster::ClusterError& e) {
    // Unconfirmed (5xx, timeout): the lock may have been stored, and would
    // keep every other pod off the node until it expires. Releasing removes
    // it only if it is this pod's.
    if (e.maybe_stored())
      locked = true;
    return fail(e.what());
  }

  cluster::PodMetadataPatch patch;
  const std::string stamp = std::to_string(now());
  if (options_.allocate_at == AllocateAt::Bind) {
    std::string reason;
    const auto reservation = reserve(ctx, node, reason);
    if (!reservation) {
      return fail("pod " + pod.namespace_ + "/" + pod.name + " does not fit on node " +
                  std::string(node) + ": " + reason);
    }
    try {
      patch.annotations = allocation_annotations(devices_, reservation->allocations);
    } catch (const host::PluginCallError& e) {
      return fail(e.what());
    }
    patch.annotations.push_back({std::string(kAssignedNodeAnnotation), std::string(node)});
    patch.annotations.push_back({std::string(kAssignedTimeAnnotation), stamp});
    patch.labels.push_back({std::string(kAssignedNodeAnnotation), std::string(node)});
  }
  patch.annotations.push_back({std::string(kBindPhaseAnnotation), "allocating"});
  patch.annotations.push_back({std::string(kBindTimeAnnotation), stamp});
  PodWrite write = plan_write(pod, patch);
  // The write is made against exactly the version whose preconditions were
  // judged: bound meanwhile, deleted, re-created — none is written to.
  write.patch.expect_resource_version = pod.resource_version;
  attach_write(key, std::make_shared<const PodWrite>(write));
  std::string error;
  switch (write_pod(pod, write.patch, error)) {
    case WriteOutcome::stored:
      written = std::move(write);
      break;
    case WriteOutcome::not_stored:
      return fail(error);
    case WriteOutcome::unknown:
      // Perhaps stored: taken back if it can be; kept as an unconfirmed
      // reservation if that cannot be known either.
      written = std::move(write);
      return fail(error);
  }
  try {
    cluster_.bind(pod.namespace_, pod.name, key, node);
  } catch (const cluster::ClusterError& e) {
    return fail(e.what(), e.maybe_stored());
  }
  return succeed();
}

void Scheduler::lock_node(std::string_view node, const cluster::PodRecord& pod) {
  const auto& view = pod.model->view();
  // A PodGroup member: the label of the scheduler-plugins coscheduling
  // API, or the pod's spec.schedulingGroup (HAMi §6.1 checks both).
  bool pod_group = !pod.pod_group_name.empty();
  for (size_t i = 0; i < view.labels_len; ++i) {
    if (sv(view.labels[i].key) == kPodGroupLabel && view.labels[i].value.len > 0)
      pod_group = true;
  }
  constexpr auto kRetryInterval = std::chrono::milliseconds(100);
  const auto budget = options_.pod_group_lock_retry;
  if (!pod_group || budget <= std::chrono::milliseconds::zero()) {
    locker_.lock(node, pod.namespace_, pod.name);
    return;
  }
  // Counted in intervals rather than against a wall clock so a test's
  // sleeper sets the pace; each attempt's own duration comes on top, as in
  // HAMi's poll loop.
  const auto intervals = (budget + kRetryInterval - std::chrono::milliseconds(1)) / kRetryInterval;
  for (int64_t waited = 0;; ++waited) {
    try {
      locker_.lock(node, pod.namespace_, pod.name);
      return;
    } catch (const cluster::NodeLockError& e) {
      if (!e.contention())
        throw;
      if (waited >= intervals) {
        throw cluster::NodeLockError(true, "timed out after " + go_duration_ms(budget) +
                                               " waiting for node " + std::string(node) +
                                               " to be unlocked: node lock contention");
      }
    }
    if (options_.sleep)
      options_.sleep(kRetryInterval);
    else
      std::this_thread::sleep_for(kRetryInterval);
  }
}

void Scheduler::check_node_health() {
  auto nodes = cluster_.nodes();
  for (auto& slot : nodes) {
    // Each model is let go once its node is checked: a patch replaces it,
    // and holding every old one until the end of the round kept two models
    // of each node alive at once.
    const std::shared_ptr<const k8s::NodeModel> node = std::move(slot);
    std::shared_ptr<const NodeDevices> devices;
    std::vector<bool> healthy;
    {
      const auto snapshot = ledger_.read();
      if (const NodeEntry* entry = snapshot->node(node->name())) {
        devices = entry->devices;
        healthy = entry->healthy;
      }
    }
    // Only vendors registered on the node are checked: HAMi stamped the
    // handshake on every node, GPU or not (bug 7.7#10).
    if (!devices)
      continue;
    for (uint32_t v = 0; v < devices_.size(); ++v) {
      if (v >= devices->vendors().size() || !devices->vendors()[v].registered)
        continue;
      try {
        const host::HealthResult health = devices_[v].node_health(node->view(), now());
        std::vector<cluster::MetadataWrite> writes;
        for (const auto& w : health.writes)
          writes.push_back({w.key, w.value});
        const bool was_healthy = v >= healthy.size() || healthy[v];
        if (!health.healthy && was_healthy) {
          for (const auto& w : devices_[v].node_cleanup(node->view())) {
            writes.push_back({w.key, w.value});
          }
        }
        {
          auto txn = ledger_.write();
          txn->set_health(node->name(), v, health.healthy);
        }
        if (!writes.empty()) {
          cluster_.patch_node_annotations(node->name(), writes, std::nullopt);
        }
      } catch (const std::exception& e) {
        if (options_.logger) {
          options_.logger->warn("node health check failed", {{"node", std::string(node->name())},
                                                             {"plugin", devices_[v].name()},
                                                             {"error", e.what()}});
        }
      }
    }
  }
}

// ---- cluster feed ----------------------------------------------------------

void Scheduler::node_upserted(const std::shared_ptr<const k8s::NodeModel>& node) {
  std::shared_ptr<const NodeDevices> previous;
  {
    const auto snapshot = ledger_.read();
    if (const NodeEntry* entry = snapshot->node(node->name()))
      previous = entry->devices;
  }
  if (previous && previous->source_fingerprint() == NodeDevices::fingerprint(devices_, *node))
    return;
  std::shared_ptr<const NodeDevices> devices;
  try {
    devices = NodeDevices::decode(devices_, *node, previous.get());
  } catch (const std::exception& e) {
    if (options_.logger) {
      options_.logger->warn("node devices not decoded",
                            {{"node", std::string(node->name())}, {"error", e.what()}});
    }
    return;
  }
  auto txn = ledger_.write();
  txn->set_node_devices(std::move(devices));
}

void Scheduler::node_deleted(std::string_view name) {
  auto txn = ledger_.write();
  txn->remove_node(name);
}

void Scheduler::pod_upserted(const std::shared_ptr<const cluster::PodRecord>& pod) {
  if (pod->phase == "Succeeded" || pod->phase == "Failed") {
    auto txn = ledger_.write();
    txn->remove_pod(pod->uid);
    return;
  }
  // Decoded before the ledger is locked: plugins run here and readers
  // would wait on them.
  const auto allocations = pod_allocations(*pod);
  auto txn = ledger_.write();
  const PodCharge* existing = txn->pod(pod->uid);
  // The write this process made for the pod, while the pod carries it.
  std::shared_ptr<const PodWrite> write =
      existing != nullptr && existing->write && cluster::carries(*pod, existing->write->patch)
          ? existing->write
          : nullptr;
  if (existing != nullptr && existing->reservation && existing->write &&
      existing->write->unconfirmed &&
      newer_version(pod->resource_version, existing->write->judged_version)) {
    // A version after the write of unknown outcome settles it: stored when
    // it carries the write, not stored otherwise; the pod's annotations
    // are the charge from here on.
    if (write) {
      auto confirmed = std::make_shared<PodWrite>(*write);
      confirmed->unconfirmed = false;
      write = std::move(confirmed);
    }
    if (!allocations) {
      txn->remove_pod(pod->uid);
      return;
    }
    PodCharge charge = annotated_charge(*pod, *allocations, existing);
    charge.write = std::move(write);
    txn->put_pod(std::move(charge));
    return;
  }
  if (!allocations) {
    // A reservation in flight is not undone by an update that predates
    // its annotations.
    if (existing != nullptr && !existing->reservation)
      txn->remove_pod(pod->uid);
    return;
  }
  PodCharge charge = annotated_charge(*pod, *allocations, existing);
  // Whether this version carries the reservation's own write. Reservations
  // are never shrunk, so a shrunk charge is compared unshrunk.
  const auto carries = [&](const PodCharge& reservation) {
    if (charge.node != reservation.node)
      return false;
    if (!charge.shrunk)
      return charge.devices == reservation.devices;
    return collapse(*allocations, pod->model->view().init_count, false) == reservation.devices;
  };
  if (existing != nullptr && existing->reservation && !carries(*existing)) {
    // Not the reservation's write: a version from before it, whose
    // allocation the pod holds until that write lands.
    PodCharge kept = *existing;
    kept.held_node = std::move(charge.node);
    kept.held_devices = std::move(charge.devices);
    txn->put_pod(std::move(kept));
    return;
  }
  charge.write = std::move(write);
  txn->put_pod(std::move(charge));
}

std::optional<std::vector<VendorAllocation>> Scheduler::pod_allocations(
    const cluster::PodRecord& pod) const {
  std::string error;
  auto allocations = allocations_from_pod(devices_, pod, error);
  if (!error.empty() && options_.logger) {
    options_.logger->warn("pod allocation not decoded",
                          {{"pod", pod.namespace_ + "/" + pod.name}, {"error", error}});
  }
  return allocations;
}

PodCharge Scheduler::annotated_charge(const cluster::PodRecord& pod,
                                      const std::vector<VendorAllocation>& allocations,
                                      const PodCharge* existing) {
  // Once shrunk to its app containers a pod never grows back (HAMi 7.2).
  const bool shrunk = pod.init_containers_succeeded || (existing != nullptr && existing->shrunk);
  PodCharge charge;
  charge.uid = pod.uid;
  charge.namespace_ = pod.namespace_;
  charge.name = pod.name;
  charge.node = std::string(*pod.annotation(kAssignedNodeAnnotation));
  charge.devices = collapse(allocations, pod.model->view().init_count, shrunk);
  charge.shrunk = shrunk;
  return charge;
}

void Scheduler::pod_deleted(const std::shared_ptr<const cluster::PodRecord>& pod) {
  auto txn = ledger_.write();
  txn->remove_pod(pod->uid);
}

void Scheduler::quotas_changed() {
  auto limits = quota_limits(cluster_.quotas(), devices_);
  auto txn = ledger_.write();
  txn->set_quota_limits(std::move(limits));
}

}  // namespace hami::scheduling
