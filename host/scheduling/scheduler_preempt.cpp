// Preempt: per candidate node, the victims kube-scheduler proposed plus the
// smallest set of lower-priority pods holding this scheduler's devices that
// lets the pod fit there (preemption.hpp), judged read-only on one ledger
// snapshot with the filter's fit, as explain judges.
#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "cluster/node_lock.hpp"
#include "scheduling/device_holds.hpp"
#include "scheduling/node_fit.hpp"
#include "scheduling/preemption.hpp"
#include "scheduling/scheduler.hpp"
#include "scheduling/scheduler_internal.hpp"

namespace hami::scheduling {

namespace {

VictimRank rank_of(const k8s::PodModel& pod) {
  VictimRank rank;
  rank.priority = pod.priority().value_or(0);
  if (!pod.start_time().empty()) {
    if (const auto seconds = cluster::parse_rfc3339(pod.start_time()))
      rank.start = *seconds;
  }
  return rank;
}

// Candidates with the same rank, namespace and charge on the node are
// interchangeable: the search counts how many of them it takes.
std::string class_signature(const VictimRank& rank, const PodCharge& charge,
                            std::string_view node) {
  std::string s = std::to_string(rank.priority) + '|' + std::to_string(rank.start) + '|' +
                  charge.namespace_ + '|';
  for_each_charged(charge, node, [&s](const DeviceCharge& d) {
    s += std::to_string(d.vendor) + ',' + d.device_id + ',' + std::to_string(d.slots) + ',' +
         std::to_string(d.memory_mib) + ',' + std::to_string(d.cores);
    for (const std::string& h : d.holds)
      s += ',' + std::to_string(h.size()) + ':' + h;
    s += ';';
  });
  return s;
}

}  // namespace

PreemptionOutcome Scheduler::preempt(const k8s::PodModel& pod,
                                     std::span<const PreemptionCandidate> candidates) const {
  PreemptionOutcome out;
  if (options_.gate) {
    if (std::string closed = options_.gate(); !closed.empty()) {
      out.error = std::move(closed);
      return out;
    }
  }
  const hami_pod_view& view = pod.view();
  std::string error;
  const auto ctx = pod_context(view, error);
  if (!ctx) {
    out.error = error;
    return out;
  }
  if (!ctx->requests.any) {
    out.passthrough = true;
    for (const PreemptionCandidate& c : candidates) {
      NodeVictims n{c.node, {}, c.pdb_violations};
      for (const ProposedVictim& v : c.victims)
        n.uids.push_back(v.uid);
      out.nodes.push_back(std::move(n));
    }
    return out;
  }
  const int32_t priority = pod.priority().value_or(0);

  // The pods of the cluster view by uid.
  const auto records = cluster_.pods();
  std::unordered_map<std::string_view, const cluster::PodRecord*> by_uid;
  by_uid.reserve(records.size());
  for (const auto& r : records)
    by_uid.emplace(r->uid, r.get());

  struct Verdict {
    bool kept = false;
    std::string why;  // dropped: the reason
    NodeVictims victims;
    bool inexact = false;
  };
  std::vector<Verdict> verdicts(candidates.size());
  {
    const auto snapshot = ledger_.read();
    const PodCharge* own = snapshot->pod(ctx->key);
    const auto quota = quota_context(*snapshot, devices_, ctx->namespace_, own);

    const auto evaluate = [&](size_t i, FitScratch& scratch) {
      const PreemptionCandidate& cand = candidates[i];
      Verdict& verdict = verdicts[i];
      const NodeEntry* entry = snapshot->node(cand.node);
      if (entry == nullptr || !entry->devices || !entry->devices->registered()) {
        verdict.why = std::string(kNodeUnregistered);
        return;
      }
      const NodeDevices& devices = *entry->devices;
      NodeUse base = entry->use;
      NodeHolds base_holds = entry->holds;
      if (own != nullptr && own->on(cand.node)) {
        subtract_charge(devices, base, *own);
        subtract_holds(devices, base_holds, *own);
      }

      // kube-scheduler's victims: evicted in any case.
      struct Victim {
        std::string uid;
        std::optional<VictimRank> rank;
        const PodCharge* charge = nullptr;  // null: holds none of our devices here
      };
      std::vector<Victim> kept;
      std::unordered_set<std::string_view> proposed;
      for (const ProposedVictim& v : cand.victims) {
        Victim k{v.uid, v.rank, nullptr};
        if (const auto it = by_uid.find(v.uid); it != by_uid.end())
          k.rank = rank_of(*it->second->model);
        if (const PodCharge* charge = snapshot->pod(v.uid);
            charge != nullptr && charge->on(cand.node) && charge != own)
          k.charge = charge;
        proposed.insert(v.uid);
        kept.push_back(std::move(k));
      }
      // The pods that may be added: bound here, of lower priority, their
      // devices charged from their own allocation (not a bind in flight).
      std::vector<const PodCharge*> extra;
      VictimSearch search;
      std::unordered_map<std::string, size_t> classes;
      for (const std::string& uid : entry->pods) {
        if (proposed.contains(uid) || uid == ctx->key)
          continue;
        const PodCharge* charge = snapshot->pod(uid);
        if (charge == nullptr || charge->reservation || charge->node != cand.node)
          continue;
        const auto it = by_uid.find(uid);
        if (it == by_uid.end() || it->second->node_name != cand.node)
          continue;
        const VictimRank rank = rank_of(*it->second->model);
        if (rank.priority >= priority)
          continue;
        const auto [c, added] =
            classes.emplace(class_signature(rank, *charge, cand.node), classes.size());
        search.class_of.push_back(c->second);
        search.candidates.push_back(rank);
        extra.push_back(charge);
      }
      for (const Victim& k : kept) {
        if (k.rank)
          search.kept.push_back(*k.rank);
      }

      // The quota the namespace's victims free.
      std::optional<QuotaContext> node_quota = quota;
      PodFitInput input = fit_input(*ctx, nullptr);
      input.record_placements = false;
      NodeUse usage;
      NodeHolds holds;
      search.fits = [&](std::span<const size_t> chosen) {
        usage = base;
        holds = base_holds;
        if (quota)
          node_quota = quota;
        const auto remove = [&](const PodCharge& charge) {
          subtract_charge(devices, usage, charge);
          subtract_holds(devices, holds, charge);
          if (node_quota && charge.namespace_ == ctx->namespace_) {
            const auto totals = charge.totals(devices_.size());
            for (size_t v = 0; v < totals.size() && v < node_quota->used.size(); ++v) {
              node_quota->used[v].memory_mib =
                  std::max<int64_t>(0, node_quota->used[v].memory_mib - totals[v].memory_mib);
              node_quota->used[v].cores =
                  std::max<int64_t>(0, node_quota->used[v].cores - totals[v].cores);
            }
          }
        };
        for (const Victim& k : kept) {
          if (k.charge != nullptr)
            remove(*k.charge);
        }
        for (const size_t c : chosen)
          remove(*extra[c]);
        input.quota = node_quota ? &*node_quota : nullptr;
        return fit_node(input, devices, entry->healthy, usage, scratch, &holds).fits;
      };

      VictimChoice choice;
      try {
        choice = choose_victims(search);
      } catch (const std::exception& e) {
        verdict.why = e.what();
        return;
      }
      if (!choice.found) {
        verdict.why = "no set of lower-priority pods frees enough devices";
        return;
      }
      // Most important first, as kube-scheduler lists victims; a proposed
      // victim of unknown rank last, in the order sent.
      struct Listed {
        std::string uid;
        std::optional<VictimRank> rank;
      };
      std::vector<Listed> listed;
      for (const Victim& k : kept)
        listed.push_back({k.uid, k.rank});
      for (const size_t c : choice.chosen)
        listed.push_back({extra[c]->uid, search.candidates[c]});
      std::stable_sort(listed.begin(), listed.end(), [](const Listed& a, const Listed& b) {
        if (!a.rank || !b.rank)
          return a.rank.has_value() && !b.rank.has_value();
        return more_important(*a.rank, *b.rank);
      });
      if (listed.empty()) {
        // kube-scheduler refuses a node without victims; the pod fits there
        // without preemption.
        verdict.why = "no victim needed";
        return;
      }
      verdict.kept = true;
      verdict.inexact = !choice.exact;
      verdict.victims.node = cand.node;
      verdict.victims.pdb_violations = cand.pdb_violations;
      for (Listed& l : listed)
        verdict.victims.uids.push_back(std::move(l.uid));
    };

    constexpr size_t kChunk = 64;
    const size_t chunks = (candidates.size() + kChunk - 1) / kChunk;
    std::vector<FitScratch> scratch(chunks > 1 ? pool_.slots() : 1);
    pool_.run(chunks, [&](size_t chunk, size_t slot) {
      const size_t end = std::min(candidates.size(), (chunk + 1) * kChunk);
      for (size_t i = chunk * kChunk; i < end; ++i)
        evaluate(i, scratch[slot]);
    });
  }
  for (size_t i = 0; i < verdicts.size(); ++i) {
    Verdict& v = verdicts[i];
    if (v.kept) {
      out.nodes.push_back(std::move(v.victims));
      out.inexact += v.inexact ? 1 : 0;
    } else {
      out.dropped[candidates[i].node] = std::move(v.why);
    }
  }
  return out;
}

}  // namespace hami::scheduling
