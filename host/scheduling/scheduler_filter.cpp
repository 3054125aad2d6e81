// Filter: the fit walk over the candidates, and in allocateAt filter the
// reservation and allocation write on the best node; reserve.
#include <algorithm>
#include <charconv>
#include <map>
#include <stdexcept>
#include <utility>

#include "log/logger.hpp"
#include "plugins/plugin_errors.hpp"
#include "scheduling/allocation.hpp"
#include "scheduling/held_locks.hpp"
#include "scheduling/node_fit.hpp"
#include "scheduling/placement_scores.hpp"
#include "scheduling/quota_limits.hpp"
#include "scheduling/reason_text.hpp"
#include "scheduling/scheduler.hpp"
#include "scheduling/scheduler_internal.hpp"

namespace hami::scheduling {

namespace {

// Go's %.2f.
void append_score(std::string& out, double score) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, score, std::chars_format::fixed, 2);
  out.append(buf, res.ptr);
}

// Usage (and holds) of `devices` from the charges the ledger holds for the
// node (used when the devices come from a request's Node object rather
// than the cache).
NodeUse usage_for(const LedgerState& state, const NodeEntry* entry, const NodeDevices& devices,
                  NodeHolds& holds) {
  holds.clear();
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
      apply_holds(holds, use[d.vendor][k], k, d, +1);
    }
  }
  return use;
}

}  // namespace

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
    PodFitInput input = fit_input(*ctx, quota ? &*quota : nullptr);
    // Filtering needs only the verdict (a reservation re-fits with
    // devices), unless a vendor scores where the pod would be placed.
    const bool vendor_scores =
        ctx->node_policy.plugin != nullptr && scores_placements(devices_, ctx->requests);
    input.record_placements = vendor_scores;
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
      const NodeHolds* holds = entry != nullptr ? &entry->holds : nullptr;
      NodeHolds adjusted_holds;
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
          adjusted = usage_for(*snapshot, entry, *devices, adjusted_holds);
          base = &adjusted;
          holds = &adjusted_holds;
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
          if (holds != nullptr && holds != &adjusted_holds)
            adjusted_holds = *holds;
          subtract_holds(*devices, adjusted_holds, *own);
          holds = &adjusted_holds;
        }
        const std::vector<bool>& healthy = entry != nullptr ? entry->healthy : all_healthy;
        NodeFit fit = fit_node(input, *devices, healthy, *base, part.scratch, holds);
        if (!fit.fits) {
          (fit.unresolvable ? part.unresolvable : part.failed)
              .emplace_back(i, std::move(fit.reason));
          return;
        }
        double score = 0;
        if (ctx->node_policy.plugin != nullptr) {
          hami_node_usage summary = summarize_usage(*devices, healthy, *base);
          if (vendor_scores) {
            std::string errors;
            add_placement_scores(devices_, ctx->requests, pod, ctx->node_policy.text, *devices,
                                 *base, fit, summary, errors);
            if (!errors.empty() && options_.logger) {
              options_.logger->warn("vendor placement score failed",
                                    {{"node", cand.name}, {"error", errors}});
            }
          }
          score = ctx->node_policy.plugin->score_node(ctx->node_policy.text, pod, summary);
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

  // A node whose lock another pod holds (its device plugin has not
  // confirmed that pod yet) would refuse this pod's bind with contention,
  // and kube-scheduler would back off and retry: while another node fits,
  // the locked ones fail this filter with bind's contention text, so the
  // pod goes where it can be bound now. A node whose lock a bind of this
  // process is writing counts as locked too: the feed shows that lock only
  // after the write, and kube-scheduler filters the next pod meanwhile.
  if (fitting.size() > 1) {
    const int64_t now_seconds = now();
    // The marks before the carriers: a mark goes only once the feed has put
    // its lock among the carriers, so none slips between the two reads.
    const LocksInFlightByNode in_flight = locks_in_flight_.marks(now_seconds);
    const LockedNodes locked = lock_carriers();
    if (!locked.empty() || !in_flight.empty()) {
      const auto locks = locks_taken(ctx->requests.vendor_used, devices_, options_.node_lock);
      std::vector<Fitting> free;
      std::vector<std::pair<size_t, std::string>> held;
      for (const Fitting& f : fitting) {
        const std::string& name = candidates[f.index].name;
        auto lock =
            held_lock(locked, name, locks, cluster_, ctx->namespace_, ctx->name, now_seconds);
        if (!lock)
          lock = held_lock(in_flight, name, locks, ctx->namespace_, ctx->name);
        if (lock)
          held.emplace_back(f.index, std::move(lock->reason));
        else
          free.push_back(f);
      }
      if (!free.empty() && !held.empty()) {
        fitting = std::move(free);
        for (auto& [i, reason] : held)
          out.failed[candidates[i].name] = std::move(reason);
      }
    }
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
    if (!target || (pod.uid.len > 0 && target->uid != to_sv(pod.uid)))
      target = cluster_.pod_live(ctx->namespace_, ctx->name);
  } catch (const cluster::ClusterError& e) {
    out.error = e.what();
    event(pod, true, "FilteringFailed", out.error);
    return out;
  }
  std::string refusal;
  if (!target) {
    refusal = "pod \"" + ctx->name + "\" not found";
  } else if (pod.uid.len > 0 && target->uid != to_sv(pod.uid)) {
    refusal = "Precondition failed: UID in precondition: " + std::string(to_sv(pod.uid)) +
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
      patch.annotations =
          allocation_annotations(devices_, reservation->allocations, pod, node, now());
    } catch (const host::PluginCallError& e) {
      release(ctx->key);
      out.error = e.what();
      event(pod, true, "FilteringFailed", out.error);
      return out;
    }
    add_assigned_node(patch, node, std::to_string(now()));
    PodWrite write = plan_write(*target, std::move(patch));
    // As bind's: the pod still unbound, every key still as read.
    write.patch.expect_unbound = true;
    cluster::expect_as_read(write.patch, *target);
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
    confirm_write(ctx->key);
    release_earlier_lock(*target, node);
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
  NodeHolds holds = entry->holds;
  if (own != nullptr && own->on(node)) {
    subtract_charge(*entry->devices, usage, *own);
    subtract_holds(*entry->devices, holds, *own);
  }
  const auto quota = quota_context(*txn, devices_, ctx.namespace_, own);
  const PodFitInput input = fit_input(ctx, quota ? &*quota : nullptr);
  NodeFit fit;
  try {
    fit = fit_node(input, *entry->devices, entry->healthy, usage, &holds);
  } catch (const host::PluginCallError& e) {
    reason = e.what();
    return std::nullopt;
  }
  if (!fit.fits) {
    reason = std::move(fit.reason);
    return std::nullopt;
  }
  Reservation r;
  r.allocations = allocations_from_fit(devices_, fit, ctx.requests);
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

}  // namespace hami::scheduling
