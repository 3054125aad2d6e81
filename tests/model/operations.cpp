#include "operations.hpp"

#include <nlohmann/json.hpp>

#include "reference_model.hpp"

namespace hami::model {

namespace {

std::string_view kind_name(OpKind k) {
  switch (k) {
    case OpKind::create:
      return "create";
    case OpKind::remove:
      return "delete";
    case OpKind::recreate:
      return "recreate";
    case OpKind::complete:
      return "complete";
    case OpKind::filter:
      return "filter";
    case OpKind::prioritize:
      return "prioritize";
    case OpKind::bind:
      return "bind";
    case OpKind::finish:
      return "device-plugin-finish";
    case OpKind::clock:
      return "clock";
    case OpKind::leader:
      return "leader-change";
    case OpKind::gate:
      return "gate-toggle";
    case OpKind::drop_watches:
      return "drop-watches";
    case OpKind::expire_history:
      return "expire-history";
  }
  return "?";
}

std::string_view uid_name(UidChoice u) {
  switch (u) {
    case UidChoice::live:
      return "live-uid";
    case UidChoice::stale:
      return "stale-uid";
    case UidChoice::bogus:
      return "bogus-uid";
  }
  return "?";
}

}  // namespace

std::string describe(const Op& op) {
  std::string out(kind_name(op.kind));
  if (op.kind == OpKind::drop_watches || op.kind == OpKind::expire_history)
    out += " then " + std::string(kind_name(op.then));
  if (!op.pod.empty())
    out += " " + op.pod;
  if (op.kind == OpKind::bind)
    out += " -> " + op.node + " " + std::string(uid_name(op.uid));
  if (!op.mode.empty())
    out += " mode=" + op.mode;
  if (!op.limits.empty())
    out += " limits=" + op.limits;
  if (op.kind == OpKind::clock)
    out += " +" + std::to_string(op.seconds) + "s";
  if (op.fault != Fault::none)
    out += " [fault " + std::string(fault_name(op.fault)) + "]";
  return out;
}

void OpGenerator::draw_pod(const StoredState& stored, Op& op) {
  // A third of the pods ask for MIG instances (a few of them allow
  // hami-core too); of the others most ask for hami-core, and some name no
  // mode (a MIG request too when they fit a MIG-mode GPU: they may go to
  // either kind of node).
  const int r = static_cast<int>(below(100));
  if (r < 30) {
    op.mode = r < 25 ? "mig" : "hami-core,mig";
    op.limits = draw_mig_limits();
    return;
  }
  op.mode = r < 85 ? "hami-core" : "";
  op.limits = draw_limits(stored);
}

std::string OpGenerator::draw_mig_limits() {
  // Memory at a profile's size (1g.5gb 4864, 2g.10gb 9856, 3g.20gb 19968,
  // 7g.40gb 40192), one MiB over it, or in between; 1..2 instances.
  static constexpr int64_t kSizes[] = {4864,  4865,  9856, 9857, 19968, 19969,
                                       40192, 40193, 3000, 4000, 12000, 30000};
  const auto one = [&](bool small) {
    nlohmann::json limits = nlohmann::json::object();
    limits["nvidia.com/gpu"] = std::to_string(!small && chance(30) ? 2 : 1);
    const int64_t mem = small ? 4000 : kSizes[below(std::size(kSizes))];
    if (small || chance(90))
      limits["nvidia.com/gpumem"] = std::to_string(mem);
    if (chance(15))
      limits["nvidia.com/gpucores"] = std::to_string(std::vector<int64_t>{14, 30, 100}[below(3)]);
    return limits;
  };
  nlohmann::json containers = nlohmann::json::array();
  containers.push_back(one(false));
  if (chance(20))
    containers.push_back(chance(50) ? nlohmann::json::object() : one(true));
  return containers.dump();
}

std::string OpGenerator::draw_limits(const StoredState& stored) {
  // Sizes aimed at one hami-core device's free room: exactly it, one unit
  // over it, or a plain size.
  std::vector<std::string> errors;
  const DeviceMap used = device_totals(expected_charges(stored, errors));
  std::vector<StoredDevice> devices;
  for (const auto& n : stored.nodes) {
    for (const auto& d : n.devices) {
      if (!d.mig())
        devices.push_back(d);
    }
  }
  int64_t free_mem = 1000;
  int64_t free_cores = 100;
  if (!devices.empty()) {
    const StoredDevice& d = devices[below(devices.size())];
    const auto it = used.find(d.id);
    const DeviceTotals u = it == used.end() ? DeviceTotals{} : it->second;
    free_mem = d.memory - u.memory;
    free_cores = d.cores - u.cores;
  }
  const auto gpu_limits = [&](bool small) {
    nlohmann::json limits = nlohmann::json::object();
    limits["nvidia.com/gpu"] = std::to_string(!small && chance(25) ? 2 : 1);
    const int m = static_cast<int>(below(100));
    int64_t mem = 0;
    if (small)
      mem = 500;
    else if (m < 35 && free_mem > 0)
      mem = free_mem;
    else if (m < 60)
      mem = free_mem + 1;
    else if (m < 90)
      mem = std::vector<int64_t>{500, 1000, 1500, 2000, 4000}[below(5)];
    if (mem > 0)
      limits["nvidia.com/gpumem"] = std::to_string(mem);
    const int c = static_cast<int>(below(100));
    int64_t cores = -1;
    if (c < 20)
      cores = free_cores;
    else if (c < 35)
      cores = free_cores + 1;
    else if (c < 60)
      cores = std::vector<int64_t>{10, 25, 50}[below(3)];
    if (cores >= 0 && cores <= 100)
      limits["nvidia.com/gpucores"] = std::to_string(cores);
    return limits;
  };
  nlohmann::json containers = nlohmann::json::array();
  containers.push_back(gpu_limits(false));
  if (chance(20))
    containers.push_back(chance(50) ? nlohmann::json::object() : gpu_limits(true));
  return containers.dump();
}

Fault OpGenerator::draw_fault(bool writes_pod) {
  if (!chance(30))
    return Fault::none;
  static constexpr Fault kPodFaults[] = {Fault::pod_write_before, Fault::pod_write_after,
                                         Fault::pod_write_conflict, Fault::pod_write_and_removal};
  static constexpr Fault kBindFaults[] = {
      Fault::pod_write_before,      Fault::pod_write_after,   Fault::pod_write_conflict,
      Fault::pod_write_and_removal, Fault::node_write_before, Fault::node_write_after,
      Fault::binding_before,        Fault::binding_after,     Fault::binding_refused};
  if (writes_pod)
    return kPodFaults[below(std::size(kPodFaults))];
  return kBindFaults[below(std::size(kBindFaults))];
}

Op OpGenerator::next(const StoredState& stored, const GenContext& ctx) {
  std::vector<const StoredPod*> live;
  std::vector<std::string> free_names;
  for (const auto& name : ctx.pool) {
    if (const StoredPod* p = stored.pod("ml", name))
      live.push_back(p);
    else
      free_names.push_back(name);
  }
  const auto any_live = [&]() -> const StoredPod* {
    return live.empty() ? nullptr : live[below(live.size())];
  };
  struct Weight {
    OpKind kind;
    int weight;
  };
  std::vector<Weight> weights = {
      {OpKind::create, free_names.empty() ? 0 : 14},
      {OpKind::remove, 5},
      {OpKind::recreate, 5},
      {OpKind::complete, 2},
      {OpKind::filter, 18},
      {OpKind::prioritize, 4},
      {OpKind::bind, 24},
      {OpKind::finish, 10},
      {OpKind::clock, 3},
      {OpKind::leader, 2},
      {OpKind::gate, 2},
      {OpKind::drop_watches, ctx.watches ? 3 : 0},
      {OpKind::expire_history, ctx.watches ? 2 : 0},
  };
  int total = 0;
  for (const auto& w : weights)
    total += w.weight;
  int pick = static_cast<int>(below(static_cast<size_t>(total)));
  OpKind kind = OpKind::filter;
  for (const auto& w : weights) {
    if (pick < w.weight) {
      kind = w.kind;
      break;
    }
    pick -= w.weight;
  }

  Op op;
  op.kind = kind;
  switch (kind) {
    case OpKind::create:
      op.pod = free_names[below(free_names.size())];
      draw_pod(stored, op);
      break;
    case OpKind::recreate:
      if (const auto* p = any_live()) {
        op.pod = p->name;
        draw_pod(stored, op);
      } else {
        op.kind = OpKind::clock;
        op.seconds = 30;
      }
      break;
    case OpKind::remove:
    case OpKind::complete:
    case OpKind::prioritize:
      if (const auto* p = any_live())
        op.pod = p->name;
      else
        op.kind = OpKind::gate;
      break;
    case OpKind::filter: {
      // kube-scheduler filters pods that are pending and not bound yet.
      std::vector<const StoredPod*> pending;
      for (const auto* p : live) {
        if (p->node_name.empty() && p->phase == "Pending" &&
            !(ctx.avoid.contains("refilter") && p->annotation(kAllocated)))
          pending.push_back(p);
      }
      if (!pending.empty()) {
        op.pod = pending[below(pending.size())]->name;
        if (ctx.filter_writes)
          op.fault = draw_fault(true);
      } else {
        op.kind = OpKind::leader;
      }
      break;
    }
    case OpKind::finish: {
      std::vector<const StoredPod*> binding;
      for (const auto* p : live) {
        if (!p->node_name.empty() && p->annotation(kBindPhase) == "allocating")
          binding.push_back(p);
      }
      if (binding.empty()) {
        op.kind = OpKind::clock;
        op.seconds = 30;
      } else {
        op.pod = binding[below(binding.size())]->name;
      }
      break;
    }
    case OpKind::bind: {
      // Any pod but a completed one (kube-scheduler binds only pods it
      // filtered; a retried bind may find the pod bound already).
      std::vector<const StoredPod*> bindable;
      for (const auto* p : live) {
        if (p->phase != "Succeeded")
          bindable.push_back(p);
      }
      const StoredPod* p = bindable.empty() ? nullptr : bindable[below(bindable.size())];
      if (p == nullptr) {
        op.kind = OpKind::clock;
        op.seconds = 30;
        break;
      }
      op.pod = p->name;
      std::vector<std::string> fit;
      if (ctx.last_fit != nullptr) {
        if (const auto it = ctx.last_fit->find(p->uid); it != ctx.last_fit->end())
          fit = it->second;
      }
      const int r = static_cast<int>(below(100));
      if (r < 50 && !fit.empty()) {
        op.node = fit[below(fit.size())];  // a node the last filter found fitting
      } else if (r < 65 && !p->node_name.empty()) {
        op.node = p->node_name;  // a retried bind to the node it is bound to
      } else if (r < 80 && !p->node_name.empty()) {
        std::vector<std::string> others;
        for (const auto& n : ctx.nodes) {
          if (n != p->node_name)
            others.push_back(n);
        }
        op.node = others.empty() ? ctx.nodes.front() : others[below(others.size())];
      } else if (r < 85) {
        op.node = "node-gone";
      } else {
        op.node = ctx.nodes[below(ctx.nodes.size())];
      }
      if (ctx.avoid.contains("rebind") && !p->node_name.empty() && op.node != p->node_name)
        op.node = p->node_name;
      if (ctx.avoid.contains("unfiltered-bind") && ctx.filter_writes) {
        const auto assigned = p->annotation(kAssignedNode);
        if (!assigned || !p->annotation(kAllocated)) {
          op.kind = OpKind::filter;
          op.node.clear();
          break;
        }
        op.node = *assigned;
      }
      const int u = static_cast<int>(below(100));
      op.uid = u < 88 ? UidChoice::live : u < 96 ? UidChoice::stale : UidChoice::bogus;
      op.fault = draw_fault(false);
      if (ctx.avoid.contains("binding-after") && op.fault == Fault::binding_after)
        op.fault = Fault::binding_before;
      break;
    }
    case OpKind::clock:
      op.seconds = chance(50) ? 301 : 30;
      break;
    case OpKind::drop_watches:
    case OpKind::expire_history: {
      std::vector<const StoredPod*> binding;
      for (const auto* p : live) {
        if (!p->node_name.empty() && p->annotation(kBindPhase) == "allocating")
          binding.push_back(p);
      }
      const int t = static_cast<int>(below(100));
      if (t < 25 && !free_names.empty()) {
        op.then = OpKind::create;
        op.pod = free_names[below(free_names.size())];
        draw_pod(stored, op);
      } else if (t < 50 && !binding.empty()) {
        op.then = OpKind::finish;
        op.pod = binding[below(binding.size())]->name;
      } else if (const auto* p = any_live()) {
        op.then = t < 70 ? OpKind::recreate : t < 90 ? OpKind::remove : OpKind::complete;
        op.pod = p->name;
        if (op.then == OpKind::recreate)
          draw_pod(stored, op);
      } else if (!free_names.empty()) {
        op.then = OpKind::create;
        op.pod = free_names[below(free_names.size())];
        draw_pod(stored, op);
      }
      break;
    }
    case OpKind::leader:
    case OpKind::gate:
      break;
  }
  return op;
}

}  // namespace hami::model
