#include "scheduling/node_fit.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "scheduling/quota_limits.hpp"

namespace hami::scheduling {

namespace {

struct QuotaHookState {
  const QuotaContext* quota;
  uint32_t vendor;
  bool init;
  const PodTotals* totals;
};

uint32_t quota_hook_allows(void* ctx, int64_t memory_mib, int64_t cores) {
  const auto& s = *static_cast<const QuotaHookState*>(ctx);
  const PodTotals& t = *s.totals;
  int64_t memory = 0;
  int64_t core_total = 0;
  if (s.init) {
    memory = std::max({t.init_peak_memory, memory_mib, t.app_memory});
    core_total = std::max({t.init_peak_cores, cores, t.app_cores});
  } else {
    memory = std::max(t.init_peak_memory, t.app_memory + memory_mib);
    core_total = std::max(t.init_peak_cores, t.app_cores + cores);
  }
  const QuotaLimits& limits = s.quota->limits[s.vendor];
  const VendorTotals& used = s.quota->used[s.vendor];
  return quota_allows(limits, s.quota->memory_factor[s.vendor], used, memory, core_total) ? 1u : 0u;
}

bool quota_applies(const QuotaContext* quota, uint32_t vendor) {
  return quota != nullptr && vendor < quota->limits.size() &&
         (quota->limits[vendor].memory_mib || quota->limits[vendor].cores);
}

struct ContainerOutcome {
  bool fits = true;
  bool unresolvable = false;
  std::string reason;
};

// Fits container `c` on `usage` (updated in place) and, when asked, appends
// the devices it takes to `placed`.
// Fills scratch.holds for the devices in try order: the node's holds plus
// the pod's own picks of this phase (HAMI-HOST-12).
void build_holds(uint32_t v, const NodeHolds* holds, const std::vector<DeviceUse>& use,
                 FitScratch& scratch) {
  const size_t n = scratch.order.size();
  const bool data_held =
      holds != nullptr && v < holds->size() &&
      std::any_of((*holds)[v].begin(), (*holds)[v].end(), [](const auto& h) { return !h.empty(); });
  const bool own_held = std::any_of(scratch.own_holds.begin(), scratch.own_holds.end(),
                                    [&](const auto& e) { return std::get<0>(e) == v; });
  if (!data_held && !own_held) {
    // The common case (no device of the vendor holds pick data on this
    // node): every device gets the shared run of empty items.
    scratch.holds.resize(n);
    size_t most_empty = 0;
    for (size_t t = 0; t < n; ++t) {
      const size_t k = scratch.order[t];
      const int32_t empty = k < use.size() ? use[k].empty_holds : 0;
      scratch.holds[t].len = empty > 0 ? static_cast<size_t>(empty) : 0;
      most_empty = std::max(most_empty, scratch.holds[t].len);
    }
    if (scratch.empty_items.size() < most_empty)
      scratch.empty_items.resize(most_empty, hami_str{"", 0});
    for (hami_holds& h : scratch.holds)
      h.items = h.len > 0 ? scratch.empty_items.data() : nullptr;
    return;
  }
  scratch.holds.assign(n, hami_holds{nullptr, 0});
  scratch.hold_items.clear();
  std::vector<size_t>& starts = scratch.order_starts;
  starts.assign(n + 1, 0);
  std::vector<char>& merged = scratch.hold_merged;
  merged.assign(n, 0);
  size_t most_empty = 0;
  for (size_t t = 0; t < n; ++t) {
    const size_t k = scratch.order[t];
    const size_t empty = k < use.size() ? static_cast<size_t>(std::max(use[k].empty_holds, 0)) : 0;
    const std::vector<std::string>* data = holds != nullptr ? holds_on(*holds, v, k) : nullptr;
    const bool own =
        std::any_of(scratch.own_holds.begin(), scratch.own_holds.end(),
                    [&](const auto& e) { return std::get<0>(e) == v && std::get<1>(e) == k; });
    starts[t] = scratch.hold_items.size();
    if (!own && data == nullptr) {
      // Only empty holds: they share one run of empty items, no per-pod
      // work for whole-device shares.
      scratch.holds[t].len = empty;
      most_empty = std::max(most_empty, empty);
      continue;
    }
    merged[t] = 1;
    scratch.hold_items.insert(scratch.hold_items.end(), empty, hami_str{"", 0});
    if (data != nullptr) {
      for (const std::string& h : *data)
        scratch.hold_items.push_back({h.data(), h.size()});
    }
    for (const auto& [ov, ok, item] : scratch.own_holds) {
      if (ov == v && ok == k)
        scratch.hold_items.push_back({item.data(), item.size()});
    }
  }
  starts[n] = scratch.hold_items.size();
  if (scratch.empty_items.size() < most_empty)
    scratch.empty_items.resize(most_empty, hami_str{"", 0});
  for (size_t t = 0; t < n; ++t) {
    if (merged[t])
      scratch.holds[t] = {scratch.hold_items.data() + starts[t], starts[t + 1] - starts[t]};
    else if (scratch.holds[t].len > 0)
      scratch.holds[t].items = scratch.empty_items.data();
  }
}

// Points fi.placed at vendor `v`'s picks for containers [phase_begin, c)
// (HAMI-HOST-17).
void set_placed(uint32_t v, size_t phase_begin, size_t c, FitScratch& scratch, hami_fit_input& fi) {
  scratch.placed_devices.clear();
  scratch.placed_containers.clear();
  std::vector<size_t> starts;
  for (size_t e = phase_begin; e < c; ++e) {
    starts.push_back(scratch.placed_devices.size());
    if (e >= scratch.phase_picks.size())
      continue;
    for (const Placement& p : scratch.phase_picks[e]) {
      if (p.vendor != v)
        continue;
      scratch.placed_devices.push_back(hami_placed_device{{p.id.data(), p.id.size()},
                                                          {p.type.data(), p.type.size()},
                                                          p.memory_mib,
                                                          p.cores,
                                                          p.index,
                                                          {p.data.data(), p.data.size()}});
    }
  }
  starts.push_back(scratch.placed_devices.size());
  for (size_t i = 0; i + 1 < starts.size(); ++i) {
    scratch.placed_containers.push_back(
        {scratch.placed_devices.data() + starts[i], starts[i + 1] - starts[i]});
  }
  fi.placed = scratch.placed_containers.data();
  fi.placed_len = scratch.placed_containers.size();
}

ContainerOutcome fit_container(const PodFitInput& in, size_t c, size_t phase_begin,
                               const NodeDevices& devices, const std::vector<bool>& healthy,
                               NodeUse& usage, std::span<PodTotals> totals, FitScratch& scratch,
                               std::vector<Placement>* placed, const NodeHolds* holds) {
  const bool init = c < in.requests->init_count;
  for (const VendorRequest& vr : in.requests->containers[c].vendors) {
    const uint32_t v = vr.vendor;
    const VendorDevices& vd = devices.vendors()[v];
    const bool usable = vd.registered && (v >= healthy.size() || healthy[v]);
    const size_t n = usable ? vd.size() : 0;
    const host::DevicePluginHandle& plugin = in.plugins[v];
    // A multi-pick vendor's fit decides the device count (HAMI-HOST-10).
    if (static_cast<size_t>(vr.request.count) > n && !plugin.description().multi_pick()) {
      return {false, true, std::string(kNodeInsufficientDevice)};
    }

    scratch.device_usage.resize(n);
    scratch.order_input.resize(n);
    const ScoreRequest score_request{1, vr.request.memory_mib, vr.request.memory_percent,
                                     vr.request.cores};
    for (size_t k = 0; k < n; ++k) {
      const DeviceUse& u = usage[v][k];
      const hami_device& d = vd.abi[k];
      scratch.device_usage[k] = {sizeof(hami_device_usage), &d, u.used, u.memory_mib,
                                 static_cast<int32_t>(u.cores)};
      scratch.order_input[k] = {sizeof(hami_order_device), &scratch.device_usage[k],
                                device_score(in.weights, score_request, u.used, d.count, u.cores,
                                             d.cores, u.memory_mib, d.memory_mib)};
    }

    uint32_t flags = 0;
    if (in.device_plugin != nullptr) {
      hami_order_input oi{};
      oi.struct_size = sizeof(hami_order_input);
      oi.policy = {in.device_policy.data(), in.device_policy.size()};
      oi.pod = in.pod;
      oi.devices = scratch.order_input.data();
      oi.devices_len = n;
      scratch.order.resize(n);
      flags = in.device_plugin->order_devices_into(oi, scratch.order);
    } else {
      scratch.order.resize(n);
      std::iota(scratch.order.begin(), scratch.order.end(), size_t{0});
    }
    if (in.allowed != nullptr && v < in.allowed->size()) {
      const std::vector<bool>& allowed = (*in.allowed)[v];
      std::erase_if(scratch.order, [&](size_t k) { return k >= allowed.size() || !allowed[k]; });
    }
    const size_t m = scratch.order.size();

    scratch.tried.resize(m);
    for (size_t k = 0; k < m; ++k)
      scratch.tried[k] = scratch.device_usage[scratch.order[k]];

    QuotaHookState hook_state{in.quota, v, init, &totals[v]};
    const hami_quota_hook hook{sizeof(hami_quota_hook), &hook_state, &quota_hook_allows};

    hami_fit_input fi{};
    fi.struct_size = sizeof(hami_fit_input);
    fi.pod = in.pod;
    fi.container_index = c;
    fi.request = &vr.request;
    fi.devices = scratch.tried.data();
    fi.devices_len = m;
    fi.pair_scores = vd.pairs.data();
    fi.pair_scores_len = vd.pairs.size();
    fi.policy_flags = flags;
    fi.quota = quota_applies(in.quota, v) ? &hook : nullptr;
    const bool records = plugin.reads_pods();
    if (records) {
      build_holds(v, holds, usage[v], scratch);
      fi.device_holds = scratch.holds.data();
    }
    const bool reads_placed = plugin.description().reads_placed();
    if (reads_placed)
      set_placed(v, phase_begin, c, scratch, fi);

    scratch.picks.assign(static_cast<size_t>(vr.request.count), hami_fit_pick{});
    host::FitResult result = plugin.fit(fi, scratch.picks);
    if (!result.fits) {
      const bool unresolvable = result.reason == kNodeInsufficientDevice;
      return {false, unresolvable, std::move(result.reason)};
    }

    int64_t memory = 0;
    int64_t cores = 0;
    for (size_t p = 0; p < result.picks_len; ++p) {
      const hami_fit_pick& pick = scratch.picks[p];
      const size_t k = scratch.order[pick.device];
      DeviceUse& u = usage[v][k];
      u.used += 1;
      u.memory_mib += pick.memory_mib;
      u.cores += pick.cores;
      memory += pick.memory_mib;
      cores += pick.cores;
      const std::string_view data =
          p < result.pick_data.size() ? std::string_view(result.pick_data[p]) : std::string_view();
      if (records)
        scratch.own_holds.emplace_back(v, k, std::string(data));
      if (placed != nullptr || reads_placed) {
        Placement record{v,
                         k,
                         std::string(vd.id(k)),
                         std::string(pick.type.ptr, pick.type.len),
                         pick.memory_mib,
                         pick.cores,
                         vd.abi[k].index,
                         std::string(data)};
        if (reads_placed) {
          if (scratch.phase_picks.size() <= c)
            scratch.phase_picks.resize(c + 1);
          scratch.phase_picks[c].push_back(record);
        }
        if (placed != nullptr)
          placed->push_back(std::move(record));
      }
    }
    PodTotals& t = totals[v];
    if (init) {
      t.init_peak_memory = std::max(t.init_peak_memory, memory);
      t.init_peak_cores = std::max(t.init_peak_cores, cores);
    } else {
      t.app_memory += memory;
      t.app_cores += cores;
    }
  }
  return {};
}

}  // namespace

NodeFit fit_node(const PodFitInput& in, const NodeDevices& devices,
                 const std::vector<bool>& healthy, const NodeUse& usage, FitScratch& scratch,
                 const NodeHolds* holds) {
  NodeFit out;
  // A node whose every registered vendor failed its health check is as
  // good as unregistered (HAMi drops the vendor from its cache).
  bool usable = false;
  for (size_t v = 0; v < devices.vendors().size(); ++v) {
    const VendorDevices& vd = devices.vendors()[v];
    if (vd.registered && vd.size() > 0 && (v >= healthy.size() || healthy[v]))
      usable = true;
  }
  if (!usable) {
    out.unresolvable = true;
    out.reason = std::string(kNodeUnregistered);
    return out;
  }
  const PodRequests& req = *in.requests;
  if (in.record_placements)
    out.containers.resize(req.containers.size());
  const auto placed = [&](size_t c) { return in.record_placements ? &out.containers[c] : nullptr; };
  scratch.totals.assign(in.plugins.size(), PodTotals{});
  const std::span<PodTotals> totals(scratch.totals);
  const auto fail = [&](ContainerOutcome& r) {
    out.unresolvable = r.unresolvable;
    out.reason = std::move(r.reason);
    out.containers.clear();
    return out;
  };

  // Init containers run one after another: each starts from the node's
  // usage, not from the previous init container's.
  // Earlier placements (HAMI-HOST-17) are per phase; a scratch reused from
  // another pod must not leak its picks.
  for (auto& picks : scratch.phase_picks)
    picks.clear();
  for (size_t c = 0; c < req.init_count && c < req.containers.size(); ++c) {
    if (req.containers[c].vendors.empty())
      continue;
    scratch.fresh = usage;
    scratch.own_holds.clear();
    ContainerOutcome r =
        fit_container(in, c, 0, devices, healthy, scratch.fresh, totals, scratch, placed(c), holds);
    if (!r.fits)
      return fail(r);
  }
  scratch.working = usage;
  scratch.own_holds.clear();
  for (size_t c = req.init_count; c < req.containers.size(); ++c) {
    if (req.containers[c].vendors.empty())
      continue;
    ContainerOutcome r = fit_container(in, c, req.init_count, devices, healthy, scratch.working,
                                       totals, scratch, placed(c), holds);
    if (!r.fits)
      return fail(r);
  }
  out.fits = true;
  return out;
}

NodeFit fit_node(const PodFitInput& in, const NodeDevices& devices,
                 const std::vector<bool>& healthy, const NodeUse& usage, const NodeHolds* holds) {
  FitScratch scratch;
  return fit_node(in, devices, healthy, usage, scratch, holds);
}

hami_node_usage summarize_usage(const NodeDevices& devices, const std::vector<bool>& healthy,
                                const NodeUse& usage) {
  hami_node_usage out{};
  out.struct_size = sizeof(hami_node_usage);
  out.node_name = {devices.name().data(), devices.name().size()};
  for (size_t v = 0; v < devices.vendors().size(); ++v) {
    const VendorDevices& vd = devices.vendors()[v];
    if (!vd.registered || (v < healthy.size() && !healthy[v]))
      continue;
    out.devices += vd.size();
    out.count += vd.total_count;
    out.total_cores += vd.total_cores;
    out.total_memory_mib += vd.total_memory_mib;
    if (v >= usage.size())
      continue;
    for (const DeviceUse& u : usage[v]) {
      out.used += u.used;
      out.used_cores += u.cores;
      out.used_memory_mib += u.memory_mib;
    }
  }
  return out;
}

void subtract_charge(const NodeDevices& devices, NodeUse& usage, const PodCharge& charge) {
  for_each_charged(charge, devices.name(), [&](const DeviceCharge& d) {
    if (d.vendor >= usage.size())
      return;
    const size_t k = devices.vendors()[d.vendor].find(d.device_id);
    if (k == NodeDevices::npos)
      return;
    DeviceUse& u = usage[d.vendor][k];
    u.used -= d.slots;
    u.empty_holds -= empty_holds(d);
    u.memory_mib -= d.memory_mib;
    u.cores -= d.cores;
  });
}

}  // namespace hami::scheduling
