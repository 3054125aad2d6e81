// The NUMA refit, top to bottom: the request, the pod and its container,
// the container's allocation, the fit on the allowed devices under the
// ledger's exclusive lock (recorded as a reservation), the quota, then the
// one conditional write of the two allocation annotations. Every refusal
// before the write changes nothing; a write that fails gives the pod's
// annotations back their charge (docs/refit.md).
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "log/logger.hpp"
#include "plugins/plugin_errors.hpp"
#include "scheduling/allocation.hpp"
#include "scheduling/allocation_segments.hpp"
#include "scheduling/node_fit.hpp"
#include "scheduling/quota_limits.hpp"
#include "scheduling/scheduler.hpp"
#include "scheduling/scheduler_internal.hpp"

namespace hami::scheduling {

namespace {

RefitOutcome refused(std::string reason) {
  return {false, "", std::move(reason)};
}

// "[a b]", as HAMi's log prints a device list.
std::string id_list(const std::vector<host::AllocDevice>& devices) {
  std::string out = "[";
  for (size_t i = 0; i < devices.size(); ++i) {
    if (i > 0)
      out += ' ';
    out += devices[i].id;
  }
  return out + "]";
}

std::vector<std::string> ids_of(const std::vector<host::AllocDevice>& devices) {
  std::vector<std::string> out;
  for (const host::AllocDevice& d : devices)
    out.push_back(d.id);
  return out;
}

}  // namespace

RefitOutcome Scheduler::refit(const RefitRequest& req) {
  // 1. The request.
  if (req.pod_uid.empty() || req.pod_namespace.empty() || req.pod_name.empty() ||
      req.node_name.empty()) {
    return refused("incomplete refit request: pod UID, namespace, name, and node are required");
  }
  if (req.allowed_device_uuids.empty())
    return refused("refit request carries an empty allowed device set");
  if (req.allowed_device_uuids.size() > kRefitMaxAllowedDevices) {
    return refused("refit request carries " + std::to_string(req.allowed_device_uuids.size()) +
                   " allowed devices, limit is " + std::to_string(kRefitMaxAllowedDevices));
  }
  uint32_t v = 0;
  while (v < devices_.size() && devices_[v].description().vendor != req.device_type)
    ++v;
  if (v == devices_.size())
    return refused("unknown device type \"" + req.device_type + "\"");
  if (options_.gate) {
    if (std::string closed = options_.gate(); !closed.empty())
      return refused(std::move(closed));
  }
  const host::DevicePluginHandle& plugin = devices_[v];
  const host::DeviceDescription& desc = plugin.description();
  const std::string& type = req.device_type;

  // 2. The pod, by uid, as the scheduler tracks it.
  const std::string& uid = req.pod_uid;
  const std::string who = req.pod_namespace + "/" + req.pod_name;
  {
    const auto snapshot = ledger_.read();
    const PodCharge* tracked = snapshot->pod(uid);
    if (tracked == nullptr)
      return refused("pod " + uid + " is not tracked by the scheduler");
    if (tracked->namespace_ != req.pod_namespace || tracked->name != req.pod_name)
      return refused("pod " + uid + " does not match " + who);
    if (tracked->node != req.node_name) {
      return refused("pod " + who + " is tracked on node " + tracked->node + ", not " +
                     req.node_name);
    }
  }
  const auto pod = cluster_.pod(req.pod_namespace, req.pod_name);
  if (!pod || pod->uid != uid)
    return refused("pod " + uid + " is not tracked by the scheduler");
  // Only while the node-side plugin allocates the devices bind gave it.
  const auto phase = pod->annotation(kBindPhaseAnnotation);
  if (!phase || *phase != "allocating" ||
      (!pod->node_name.empty() && pod->node_name != req.node_name)) {
    return refused("pod " + who + " is not allocating on node " + req.node_name + " (" +
                   std::string(kBindPhaseAnnotation) + " \"" + std::string(phase.value_or("")) +
                   "\")");
  }
  const hami_pod_view& view = pod->model->view();
  if (req.container_index < 0 || static_cast<size_t>(req.container_index) >= view.containers_len) {
    return refused("container index " + std::to_string(req.container_index) +
                   " is outside the pod's containers");
  }
  const auto c = static_cast<size_t>(req.container_index);
  const std::string n = std::to_string(c);
  if (const std::string_view actual = to_sv(view.containers[c].name);
      !req.container_name.empty() && actual != req.container_name) {
    return refused("container index " + n + " is \"" + std::string(actual) + "\", not \"" +
                   req.container_name + "\"");
  }

  // 3. The container's pending and recorded allocation, as stored.
  const auto raw_pending = desc.to_allocate_annotation.empty()
                               ? std::nullopt
                               : pod->annotation(desc.to_allocate_annotation);
  const auto raw_allocated =
      desc.allocated_annotation.empty() ? std::nullopt : pod->annotation(desc.allocated_annotation);
  host::PodAllocation allocated;
  try {
    const host::PodAllocation pending =
        raw_pending ? plugin.decode_allocation(*raw_pending) : host::PodAllocation{};
    if (c >= pending.size() || pending[c].empty())
      return refused("container " + n + " has no pending " + type + " allocation to refit");
    if (raw_allocated)
      allocated = plugin.decode_allocation(*raw_allocated);
  } catch (const host::PluginCallError& e) {
    return refused("the pod's " + type + " allocation does not decode: " + e.what());
  }
  const auto recorded = pod_allocations(*pod);
  const bool recorded_here =
      recorded && std::any_of(recorded->begin(), recorded->end(), [&](const VendorAllocation& a) {
        return a.vendor == v && c < a.containers.size() && !a.containers[c].empty();
      });
  if (c >= allocated.size() || allocated[c].empty() || !recorded_here)
    return refused("container " + n + " has no recorded " + type + " allocation");
  const std::vector<host::AllocDevice> current = allocated[c];
  const std::unordered_set<std::string_view> allowed(req.allowed_device_uuids.begin(),
                                                     req.allowed_device_uuids.end());
  std::string terminator;
  try {
    terminator = segment_terminator(plugin);
  } catch (const host::PluginCallError& e) {
    return refused(e.what());
  }
  const auto current_text = segment_at(*raw_allocated, terminator, c);
  if (!current_text) {
    return refused("the " + type + " allocation annotations do not split into per-container " +
                   "segments");
  }

  // 4. Already on allowed devices: nothing to move.
  if (std::all_of(current.begin(), current.end(),
                  [&](const host::AllocDevice& d) { return allowed.contains(d.id); })) {
    return {true, std::string(*current_text), ""};
  }
  // 5. One amount per device.
  for (const host::AllocDevice& d : current) {
    if (d.memory_mib != current[0].memory_mib || d.cores != current[0].cores) {
      return refused("container " + n +
                     " reserves differing amounts per device; the refit does not support "
                     "heterogeneous reservations");
    }
  }
  // 6. Vendor data (a partition) stays where it is.
  for (const VendorAllocation& a : *recorded) {
    if (a.vendor != v || c >= a.containers.size())
      continue;
    for (const host::AllocDevice& d : a.containers[c]) {
      if (!d.data.empty()) {
        return refused("container " + n + " device " + d.id +
                       " carries vendor data (a partition); the refit moves whole-device "
                       "shares only");
      }
    }
  }

  // 7. The pod's own fit for this container alone, on the allowed devices.
  std::string error;
  const auto ctx = pod_context(view, error);
  if (!ctx)
    return refused(error);
  PodRequests requests;
  requests.containers.resize(view.containers_len);
  requests.init_count = view.init_count;
  requests.vendor_used.assign(devices_.size(), false);
  requests.vendor_used[v] = true;
  requests.any = true;
  hami_device_request request{};
  request.struct_size = sizeof(hami_device_request);
  request.count = static_cast<int32_t>(current.size());
  request.memory_mib = current[0].memory_mib;
  request.cores = current[0].cores;
  requests.containers[c].vendors.push_back({v, request});

  std::vector<host::AllocDevice> moved;
  std::vector<VendorAllocation> refitted = *recorded;
  {
    auto txn = ledger_.write();
    const PodCharge* own = txn->pod(uid);
    if (own == nullptr || own->node != req.node_name)
      return refused("pod " + uid + " is not tracked by the scheduler");
    const NodeEntry* entry = txn->node(req.node_name);
    if (entry == nullptr || !entry->devices || !entry->devices->registered())
      return refused("no allowed device fits: " + std::string(kNodeUnregistered));
    const NodeDevices& node_devices = *entry->devices;
    const VendorDevices& vd = node_devices.vendors()[v];
    std::vector<std::vector<bool>> mask(devices_.size());
    mask[v].assign(vd.size(), false);
    bool any_on_node = false;
    for (size_t k = 0; k < vd.size(); ++k) {
      if (allowed.contains(vd.id(k))) {
        mask[v][k] = true;
        any_on_node = true;
      }
    }
    if (!any_on_node) {
      return refused("none of the allowed devices is a " + type + " device of node " +
                     req.node_name);
    }
    // The node without the pod, then with the containers this one runs
    // beside (an app container: the other app containers; an init
    // container runs alone).
    NodeUse usage = entry->use;
    NodeHolds holds = entry->holds;
    subtract_charge(node_devices, usage, *own);
    subtract_holds(node_devices, holds, *own);
    std::vector<VendorAllocation> beside = *recorded;
    for (VendorAllocation& a : beside) {
      for (size_t i = 0; i < a.containers.size(); ++i) {
        if (i == c || c < view.init_count || i < view.init_count)
          a.containers[i].clear();
      }
    }
    for (const DeviceCharge& d : collapse(beside, view.init_count, false)) {
      if (d.vendor >= usage.size())
        continue;
      const size_t k = node_devices.vendors()[d.vendor].find(d.device_id);
      if (k == NodeDevices::npos)
        continue;
      usage[d.vendor][k].used += d.slots;
      usage[d.vendor][k].memory_mib += d.memory_mib;
      usage[d.vendor][k].cores += d.cores;
      apply_holds(holds, usage[d.vendor][k], k, d, +1);
    }
    PodFitInput input = fit_input(*ctx, nullptr);
    input.pod = &view;
    input.requests = &requests;
    input.allowed = &mask;
    NodeFit fit;
    try {
      fit = fit_node(input, node_devices, entry->healthy, usage, &holds);
    } catch (const host::PluginCallError& e) {
      return refused("no allowed device fits: " + std::string(e.what()));
    }
    if (!fit.fits)
      return refused("no allowed device fits: " + fit.reason);
    for (const Placement& p : fit.containers[c]) {
      if (!p.data.empty()) {
        return refused("allowed device " + p.id +
                       " carries vendor data (a partition); the refit moves whole-device "
                       "shares only");
      }
      moved.push_back({p.id, p.type, p.memory_mib, p.cores, p.index, ""});
    }
    for (VendorAllocation& a : refitted) {
      if (a.vendor != v)
        continue;
      if (a.containers.size() <= c)
        a.containers.resize(c + 1);
      a.containers[c] = moved;
    }
    PodCharge charge;
    charge.uid = uid;
    charge.namespace_ = own->namespace_;
    charge.name = own->name;
    charge.node = own->node;
    charge.devices = collapse(refitted, view.init_count, false);
    // 8. The namespace quota, with the pod counted once, refitted.
    if (const auto* limits = txn->namespace_limits(own->namespace_);
        limits != nullptr && v < limits->size()) {
      VendorTotals used;
      if (const auto* all = txn->namespace_used(own->namespace_); all != nullptr && v < all->size())
        used = (*all)[v];
      const VendorTotals mine = own->totals(devices_.size())[v];
      used.memory_mib = std::max<int64_t>(0, used.memory_mib - mine.memory_mib);
      used.cores = std::max<int64_t>(0, used.cores - mine.cores);
      const VendorTotals after = charge.totals(devices_.size())[v];
      if (!quota_allows((*limits)[v], desc.memory_factor, used, after.memory_mib, after.cores)) {
        return refused("refit would exceed the " + type + " resource quota in namespace " +
                       own->namespace_);
      }
    }
    charge.reservation = true;
    // The devices the pod carries now keep counting until the write lands.
    charge.held_node = own->reservation ? own->held_node : own->node;
    charge.held_devices = own->reservation ? own->held_devices : own->devices;
    txn->put_pod(std::move(charge));
  }

  // 9. That container's segment in both annotations; every other byte kept.
  std::string text;
  std::optional<std::string> pending_value;
  std::optional<std::string> allocated_value;
  try {
    text = encode_segment(plugin, moved, terminator);
    pending_value = replace_segment(*raw_pending, terminator, c, text);
    allocated_value = replace_segment(*raw_allocated, terminator, c, text);
    // The rewritten value must read back as the same allocation with only
    // this container moved.
    host::PodAllocation expected = allocated;
    expected[c] = moved;
    const host::PodAllocation reread =
        allocated_value ? plugin.decode_allocation(*allocated_value) : host::PodAllocation{};
    bool same = pending_value.has_value() && reread.size() == expected.size();
    for (size_t i = 0; same && i < expected.size(); ++i)
      same = ids_of(reread[i]) == ids_of(expected[i]);
    if (!same) {
      release(uid);
      return refused("the " + type +
                     " allocation annotations do not split into per-container segments");
    }
  } catch (const std::exception& e) {
    release(uid);
    return refused(e.what());
  }
  cluster::PodMetadataPatch patch;
  patch.annotations.push_back({desc.to_allocate_annotation, *pending_value});
  patch.annotations.push_back({desc.allocated_annotation, *allocated_value});
  PodWrite write = plan_write(*pod, std::move(patch));
  write.patch.expect_resource_version = pod->resource_version;
  attach_write(uid, std::make_shared<const PodWrite>(write));
  switch (write_pod(*pod, write.patch, error)) {
    case WriteOutcome::stored:
      confirm_write(uid);
      break;
    case WriteOutcome::not_stored:
      release(uid);
      return refused("cannot patch pod annotations: " + error);
    case WriteOutcome::unknown:
      // Perhaps stored: both allocations count until a later version of
      // the pod settles which one it carries.
      mark_unconfirmed(uid, write);
      return refused("cannot patch pod annotations: " + error);
  }
  const std::string message =
      "NUMA refit moved container " + n + " from " + id_list(current) + " to " + id_list(moved);
  if (options_.logger)
    options_.logger->info(message, {{"pod", who}, {"node", req.node_name}});
  event(*pod, false, "NumaRefitSucceed", message);
  return {true, text, ""};
}

}  // namespace hami::scheduling
