// Explain: the filter's fit, prioritize's score and bind's node lock check,
// run read-only for one pod on every candidate node, plus one fit per
// device for the device verdicts (explain.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>

#include "plugins/plugin_errors.hpp"
#include "scheduling/explain.hpp"
#include "scheduling/explain_summary.hpp"
#include "scheduling/explain_words.hpp"
#include "scheduling/held_locks.hpp"
#include "scheduling/node_fit.hpp"
#include "scheduling/placement_scores.hpp"
#include "scheduling/quota_limits.hpp"
#include "scheduling/scheduler.hpp"
#include "scheduling/scheduler_internal.hpp"

namespace hami::scheduling {

namespace {

struct SingleQuota {
  const QuotaContext* quota;
  uint32_t vendor;
};

// One device of one container against the namespace quota, as fit's quota
// hook asks it for a pod with nothing placed yet.
uint32_t single_quota_allows(void* ctx, int64_t memory_mib, int64_t cores) {
  const auto& s = *static_cast<const SingleQuota*>(ctx);
  return quota_allows(s.quota->limits[s.vendor], s.quota->memory_factor[s.vendor],
                      s.quota->used[s.vendor], memory_mib, cores)
             ? 1u
             : 0u;
}

// Everything the per-device verdicts of one node share.
struct DeviceJudge {
  const hami_pod_view& pod;
  const PodRequests& requests;
  std::span<const host::DevicePluginHandle> plugins;
  const ScoringWeights& weights;
  const PolicyChoice& device_policy;
  const QuotaContext* quota;
};

// The device policy's fit flags for container `c`'s request of vendor `v`
// on the node, as fit_node asks the policy for them.
uint32_t policy_flags(const DeviceJudge& j, const VendorDevices& vd, const NodeUse& usage,
                      uint32_t v, const hami_device_request& request) {
  if (j.device_policy.plugin == nullptr)
    return 0;
  const size_t n = vd.size();
  std::vector<hami_device_usage> device_usage(n);
  std::vector<hami_order_device> order_input(n);
  const ScoreRequest score_request{1, request.memory_mib, request.memory_percent, request.cores};
  for (size_t k = 0; k < n; ++k) {
    const DeviceUse& u = usage[v][k];
    const hami_device& d = vd.abi[k];
    device_usage[k] = {sizeof(hami_device_usage), &d, u.used, u.memory_mib,
                       static_cast<int32_t>(u.cores)};
    order_input[k] = {sizeof(hami_order_device), &device_usage[k],
                      device_score(j.weights, score_request, u.used, d.count, u.cores, d.cores,
                                   u.memory_mib, d.memory_mib)};
  }
  hami_order_input oi{};
  oi.struct_size = sizeof(hami_order_input);
  oi.policy = {j.device_policy.text.data(), j.device_policy.text.size()};
  oi.pod = &j.pod;
  oi.devices = order_input.data();
  oi.devices_len = n;
  std::vector<size_t> order(n);
  return j.device_policy.plugin->order_devices_into(oi, order);
}

// The verdicts on every device of every vendor the pod asks for: each
// container's request of the vendor, count 1, fitted on the device alone;
// the first container it does not take gives the reason.
std::vector<DeviceExplanation> judge_devices(const DeviceJudge& j, const NodeDevices& devices,
                                             const std::vector<bool>& healthy, const NodeUse& usage,
                                             const NodeHolds& holds) {
  std::vector<DeviceExplanation> out;
  size_t total = 0;
  for (const VendorDevices& vd : devices.vendors())
    total += vd.size();
  out.reserve(total);
  for (uint32_t v = 0; v < j.plugins.size() && v < devices.vendors().size(); ++v) {
    if (v >= j.requests.vendor_used.size() || !j.requests.vendor_used[v])
      continue;
    const VendorDevices& vd = devices.vendors()[v];
    const host::DevicePluginHandle& plugin = j.plugins[v];
    const bool usable = vd.registered && (v >= healthy.size() || healthy[v]);
    // (container, request, flags) of every container asking this vendor.
    struct Ask {
      size_t container;
      hami_device_request request;
      uint32_t flags;
    };
    std::vector<Ask> asks;
    for (size_t c = 0; usable && c < j.requests.containers.size(); ++c) {
      for (const VendorRequest& vr : j.requests.containers[c].vendors) {
        if (vr.vendor != v)
          continue;
        hami_device_request one = vr.request;
        one.count = 1;
        asks.push_back({c, one, policy_flags(j, vd, usage, v, vr.request)});
      }
    }
    const SingleQuota quota_state{j.quota, v};
    const hami_quota_hook hook{sizeof(hami_quota_hook), const_cast<SingleQuota*>(&quota_state),
                               &single_quota_allows};
    const bool quota_applies = j.quota != nullptr && v < j.quota->limits.size() &&
                               (j.quota->limits[v].memory_mib || j.quota->limits[v].cores);
    std::vector<hami_str> hold_items;
    for (size_t k = 0; k < vd.size(); ++k) {
      const hami_device& d = vd.abi[k];
      const DeviceUse& u = usage[v][k];
      DeviceExplanation e;
      e.id = std::string(vd.id(k));
      e.index = d.index;
      if (!usable) {
        e.reason = "CardNotHealth";
        e.detail = "vendor " + plugin.name() + " failed its node health check";
        out.push_back(std::move(e));
        continue;
      }
      hami_holds device_holds{nullptr, 0};
      if (plugin.reads_pods()) {
        hold_items.assign(static_cast<size_t>(std::max(u.empty_holds, 0)), hami_str{"", 0});
        if (const auto* data = holds_on(holds, v, k)) {
          for (const std::string& h : *data)
            hold_items.push_back({h.data(), h.size()});
        }
        device_holds = {hold_items.data(), hold_items.size()};
      }
      const hami_device_usage du{sizeof(hami_device_usage), &d, u.used, u.memory_mib,
                                 static_cast<int32_t>(u.cores)};
      std::string code;
      const hami_device_request* judged = asks.empty() ? nullptr : &asks.front().request;
      for (const Ask& ask : asks) {
        hami_fit_input fi{};
        fi.struct_size = sizeof(hami_fit_input);
        fi.pod = &j.pod;
        fi.container_index = ask.container;
        fi.request = &ask.request;
        fi.devices = &du;
        fi.devices_len = 1;
        fi.pair_scores = vd.pairs.data();
        fi.pair_scores_len = vd.pairs.size();
        fi.policy_flags = ask.flags;
        fi.quota = quota_applies ? &hook : nullptr;
        fi.device_holds = plugin.reads_pods() ? &device_holds : nullptr;
        hami_fit_pick pick{};
        const host::FitResult r = plugin.fit(fi, std::span<hami_fit_pick>(&pick, 1));
        if (!r.fits) {
          const auto counts = reason_counts(r.reason);
          code = counts.empty() ? r.reason : counts.front().code;
          judged = &ask.request;
          break;
        }
      }
      e.fits = code.empty();
      e.reason = code;
      if (judged != nullptr) {
        e.detail =
            device_detail(plugin.description(), j.pod, d, u, *judged, code, e.memory_short_mib);
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

// Why a node whose fit failed does not fit, in words and as a group.
void describe_misfit(NodeExplanation& n, const PodRequests& requests,
                     std::span<const host::DevicePluginHandle> plugins, const NodeDevices& devices,
                     const std::vector<bool>& healthy) {
  if (n.reason == kNodeUnregistered) {
    std::string unhealthy;
    for (size_t v = 0; v < devices.vendors().size() && v < plugins.size(); ++v) {
      if (devices.vendors()[v].registered && v < healthy.size() && !healthy[v])
        unhealthy += (unhealthy.empty() ? "" : ", ") + plugins[v].name();
    }
    n.category = "no GPU registered";
    n.detail = unhealthy.empty()
                   ? "no GPU registered"
                   : "no healthy GPU: vendor " + unhealthy + " failed its node health check";
    return;
  }
  if (n.reason == kNodeInsufficientDevice) {
    // The first vendor whose request outnumbers its usable devices.
    for (const ContainerRequests& c : requests.containers) {
      for (const VendorRequest& vr : c.vendors) {
        const VendorDevices& vd = devices.vendors()[vr.vendor];
        const bool usable = vd.registered && (vr.vendor >= healthy.size() || healthy[vr.vendor]);
        const size_t have = usable ? vd.size() : 0;
        if (static_cast<size_t>(vr.request.count) <= have)
          continue;
        const std::string& word = plugins[vr.vendor].description().vendor;
        if (have == 0) {
          // The node may have GPUs of another vendor.
          n.detail = "no " + word + " device registered";
          n.category = n.detail;
        } else {
          n.category = "too few devices";
          n.detail = "needs " + std::to_string(vr.request.count) + " " + word + " devices, " +
                     std::to_string(have) + " registered";
        }
        return;
      }
    }
    n.category = "too few devices";
    n.detail = "too few devices";
    return;
  }
  const auto counts = reason_counts(n.reason);
  const auto top = std::max_element(
      counts.begin(), counts.end(),
      [](const ReasonCount& a, const ReasonCount& b) { return a.count < b.count; });
  n.category = top == counts.end() ? n.reason : reason_group(top->code);
  // The device verdicts, grouped.
  size_t alone = 0;
  std::vector<std::pair<std::string, size_t>> groups;
  for (const DeviceExplanation& d : n.devices) {
    if (d.fits) {
      ++alone;
      continue;
    }
    const std::string g = reason_group(d.reason);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& p) { return p.first == g; });
    if (it == groups.end())
      groups.emplace_back(g, 1);
    else
      ++it->second;
  }
  std::string list;
  for (const auto& [g, count] : groups)
    list += (list.empty() ? "" : ", ") + std::to_string(count) + " " + g;
  if (alone == 0) {
    n.detail = "no device fits: " + list;
  } else {
    n.detail = std::to_string(alone) + " of " + std::to_string(n.devices.size()) +
               " devices fit alone, not enough for the pod";
    if (!list.empty())
      n.detail += "; " + list;
  }
}

}  // namespace

Explanation Scheduler::explain(const k8s::PodModel& pod,
                               std::span<const std::string> node_names) const {
  const hami_pod_view& view = pod.view();
  Explanation out;
  out.pod = std::string(to_sv(view.namespace_)) + "/" + std::string(to_sv(view.name));
  std::string error;
  const auto ctx = pod_context(view, error);
  if (!ctx) {
    out.error = error;
    return out;
  }
  out.node_policy = ctx->node_policy.text;
  out.gpu_policy = ctx->device_policy.text;

  std::vector<std::string> names(node_names.begin(), node_names.end());
  if (node_names.empty()) {
    for (const auto& node : cluster_.nodes())
      names.emplace_back(node->name());
    std::sort(names.begin(), names.end());
  }
  if (!ctx->requests.any) {
    for (const std::string& name : names) {
      NodeExplanation n;
      n.name = name;
      n.fits = true;
      out.nodes.push_back(std::move(n));
    }
    out.summary = "the pod asks for no device the scheduler manages: every node passes filter";
    return out;
  }

  std::vector<NodeExplanation> all;
  std::vector<NodeExplanation> fitting;
  std::vector<NodeExplanation> misfits;
  {
    const auto snapshot = ledger_.read();
    const PodCharge* own = snapshot->pod(ctx->key);
    const auto quota = quota_context(*snapshot, devices_, ctx->namespace_, own);
    const PodFitInput input = fit_input(*ctx, quota ? &*quota : nullptr);
    const DeviceJudge judge{view,         ctx->requests,      devices_,
                            ctx->weights, ctx->device_policy, input.quota};
    const bool vendor_scores =
        ctx->node_policy.plugin != nullptr && scores_placements(devices_, ctx->requests);
    // The locks bind would take, and the nodes carrying a lock.
    const std::vector<cluster::NodeLockOptions> locks =
        locks_taken(ctx->requests.vendor_used, devices_, options_.node_lock);
    const int64_t now_seconds = now();
    const LockedNodes locked = lock_carriers();
    const auto evaluate = [&](const std::string& name, NodeExplanation& n, FitScratch& scratch) {
      n.name = name;
      const NodeEntry* entry = snapshot->node(name);
      if (entry == nullptr || !entry->devices || !entry->devices->registered()) {
        n.reason = std::string(kNodeUnregistered);
        n.detail = "no GPU registered";
        n.category = "no GPU registered";
        return;
      }
      const NodeDevices& devices = *entry->devices;
      // The ledger's usage as it is, copied only where the pod's own
      // earlier charge comes off (as filter does).
      const NodeUse* use = &entry->use;
      const NodeHolds* held_by = &entry->holds;
      NodeUse adjusted;
      NodeHolds adjusted_holds;
      if (own != nullptr && own->on(name)) {
        adjusted = entry->use;
        adjusted_holds = entry->holds;
        subtract_charge(devices, adjusted, *own);
        subtract_holds(devices, adjusted_holds, *own);
        use = &adjusted;
        held_by = &adjusted_holds;
      }
      const NodeUse& usage = *use;
      const NodeHolds& holds = *held_by;
      try {
        const NodeFit fit = fit_node(input, devices, entry->healthy, usage, scratch, &holds);
        n.devices = judge_devices(judge, devices, entry->healthy, usage, holds);
        if (!fit.fits) {
          n.reason = fit.reason;
          describe_misfit(n, ctx->requests, devices_, devices, entry->healthy);
          return;
        }
        std::optional<HeldLock> held =
            held_lock(locked, name, locks, cluster_, ctx->namespace_, ctx->name, now_seconds);
        if (held) {
          n.reason = std::move(held->reason);
          n.detail = std::move(held->detail);
          n.category = "locked";
          return;
        }
        for (const auto& container : fit.containers) {
          for (const Placement& p : container) {
            if (std::find(n.chosen.begin(), n.chosen.end(), p.id) == n.chosen.end())
              n.chosen.push_back(p.id);
          }
        }
        n.fits = true;
        if (ctx->node_policy.plugin != nullptr) {
          hami_node_usage summary = summarize_usage(devices, entry->healthy, usage);
          if (vendor_scores) {
            std::string errors;
            add_placement_scores(devices_, ctx->requests, view, ctx->node_policy.text, devices,
                                 usage, fit, summary, errors);
          }
          n.policy_score =
              ctx->node_policy.plugin->score_node(ctx->node_policy.text, view, summary);
          n.score = std::clamp<int64_t>(std::llround(n.policy_score / 10.0), 0, 10);
        }
      } catch (const std::exception& e) {
        n.fits = false;
        n.chosen.clear();
        n.reason = e.what();
        n.detail = e.what();
        n.category = "plugin error";
      }
    };
    // Large node lists are walked in chunks by the caller and idle pool
    // workers, as filter walks them; each participant has its own scratch
    // and every node its own slot of `all`.
    constexpr size_t kChunk = 128;
    const size_t chunks = (names.size() + kChunk - 1) / kChunk;
    std::vector<FitScratch> scratch(chunks > 1 ? pool_.slots() : 1);
    all.resize(names.size());
    pool_.run(chunks, [&](size_t chunk, size_t slot) {
      const size_t end = std::min(names.size(), (chunk + 1) * kChunk);
      for (size_t i = chunk * kChunk; i < end; ++i)
        evaluate(names[i], all[i], scratch[slot]);
    });
  }
  for (NodeExplanation& n : all)
    (n.fits ? fitting : misfits).push_back(std::move(n));
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const NodeExplanation& a, const NodeExplanation& b) {
                     return a.policy_score > b.policy_score;
                   });
  for (size_t i = 0; i < fitting.size(); ++i)
    fitting[i].rank = i + 1;
  out.nodes = std::move(fitting);
  for (NodeExplanation& n : misfits)
    out.nodes.push_back(std::move(n));
  out.summary = explanation_summary(out.nodes);
  return out;
}

}  // namespace hami::scheduling
