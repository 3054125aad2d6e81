// Bind, top to bottom: preconditions, the node lock, the reservation, the
// allocation write, the Binding, and on failure taking back what this
// attempt wrote (the rules are stated once, in scheduler.hpp).
#include <chrono>
#include <thread>
#include <utility>

#include "cluster/node_lock.hpp"
#include "log/logger.hpp"
#include "plugins/plugin_errors.hpp"
#include "scheduling/allocation.hpp"
#include "scheduling/scheduler.hpp"
#include "scheduling/scheduler_internal.hpp"

namespace hami::scheduling {

namespace {

// Go's time.Duration text: whole seconds as "28s" / "1m0s", shorter spans
// as "300ms" (config durations are whole seconds; tests use less).
std::string go_duration_ms(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0 || d >= std::chrono::seconds(1))
    return cluster::go_duration(std::chrono::duration_cast<std::chrono::seconds>(d).count());
  return std::to_string(d.count()) + "ms";
}

}  // namespace

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
  // allocateAt filter: the devices are filter's; a pod filter gave none
  // would start on the node without them.
  if (options_.allocate_at == AllocateAt::Filter && !pod.annotation(kAssignedNodeAnnotation)) {
    std::string refusal = "pod " + pod.namespace_ + "/" + pod.name +
                          " has no devices allocated by filter; filter must place it first";
    event(pod, true, "BindingFailed", refusal);
    return refusal;
  }
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
  // Vendors' own node locks this attempt took: (vendor, value written).
  std::vector<std::pair<size_t, std::string>> own_locked;
  // Whether the reservation may be dropped: false while a write of this
  // attempt may be stored and could not be taken back.
  bool settled = true;
  // This attempt's marks on the locks it takes (locks_in_flight.hpp): each
  // goes when the attempt ends, unless the lock stays on the node.
  struct Mark {
    LocksInFlight::Claim claim;
    int64_t expiry_seconds;
    std::string written;
  };
  std::vector<Mark> marks;
  const auto keep_marks = [&] {
    const int64_t at = now();
    for (Mark& mark : marks)
      mark.claim.keep(std::move(mark.written), at, mark.expiry_seconds);
  };
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
    if (binding_unknown)
      keep_marks();
    if (!binding_unknown) {
      if (written)
        take_back(*written);
      if (filter_write)
        take_back(*filter_write);
      // Own locks in the reverse order of taking, then the shared one;
      // each only while it holds what this attempt wrote.
      for (auto it = own_locked.rbegin(); it != own_locked.rend(); ++it) {
        try {
          own_lockers_[it->first]->release(node, pod.namespace_, pod.name, it->second);
        } catch (const std::exception& e) {
          if (options_.logger)
            options_.logger->warn("node lock release failed",
                                  {{"node", std::string(node)}, {"error", e.what()}});
        }
      }
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

  // The lock is taken for every pod with a request of a vendor whose
  // node-side plugin releases it (HAMI-HOST-13), init-only GPU pods
  // included (HAMi bug 7.7#5 skipped them). A pod of only vendors that never
  // release it takes none: it would keep every later pod off the node until
  // it expired.
  bool lock_needed = false;
  for (size_t v = 0; v < devices_.size() && v < ctx.requests.vendor_used.size(); ++v) {
    if (ctx.requests.vendor_used[v] && devices_[v].description().takes_node_lock())
      lock_needed = true;
  }
  if (lock_needed) {
    marks.push_back(
        {locks_in_flight_.claim(node, options_.node_lock, pod.namespace_, pod.name, now()),
         options_.node_lock.expiry_seconds,
         {}});
  }
  try {
    if (lock_needed) {
      lock_node(node, pod);
      locked = true;
    }
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
  // Vendors' own locks (HAMI-HOST-15), in vendor order, after the shared
  // one. An own lock whose write is of unknown outcome names no owner, so
  // it cannot be told from another pod's: it is left to expire.
  for (size_t v = 0; v < own_lockers_.size() && v < ctx.requests.vendor_used.size(); ++v) {
    if (!own_lockers_[v] || !ctx.requests.vendor_used[v])
      continue;
    const cluster::NodeLockOptions& own = own_lockers_[v]->options();
    marks.push_back({locks_in_flight_.claim(node, own, pod.namespace_, pod.name, now()),
                     own.expiry_seconds,
                     {}});
    try {
      own_locked.emplace_back(v, own_lockers_[v]->lock(node, pod.namespace_, pod.name));
      marks.back().written = own_locked.back().second;
    } catch (const cluster::NodeLockError& e) {
      return fail(e.what());
    } catch (const cluster::ClusterError& e) {
      return fail(e.what());
    }
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
      patch.annotations =
          allocation_annotations(devices_, reservation->allocations, *ctx.pod, node, now());
    } catch (const host::PluginCallError& e) {
      return fail(e.what());
    }
    add_assigned_node(patch, node, stamp);
  }
  patch.annotations.push_back({std::string(kBindPhaseAnnotation), "allocating"});
  patch.annotations.push_back({std::string(kBindTimeAnnotation), stamp});
  PodWrite write = plan_write(pod, patch);
  // The write holds only while what was judged holds, checked where the
  // pod is stored: its uid (write_pod), still unbound and not being
  // deleted, and every key written still as it was read. Other writes to
  // the pod (kube-scheduler's status conditions and nominatedNodeName,
  // other annotations and labels) do not stop it.
  write.patch.expect_unbound = true;
  cluster::expect_as_read(write.patch, pod);
  attach_write(key, std::make_shared<const PodWrite>(write));
  std::string error;
  switch (write_pod(pod, write.patch, error)) {
    case WriteOutcome::stored:
      written = std::move(write);
      confirm_write(key);
      release_earlier_lock(pod, node);
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
  keep_marks();
  return succeed();
}

void Scheduler::release_earlier_lock(const cluster::PodRecord& pod, std::string_view node) {
  // An earlier attempt whose Binding was of unknown outcome kept its lock
  // on the node it chose. The write just stored was conditional on the pod
  // being unbound: that attempt did not bind it, and its lock would keep
  // other pods off that node until it expired.
  const auto earlier = pod.annotation(kAssignedNodeAnnotation);
  if (!earlier || earlier->empty() || *earlier == node)
    return;
  try {
    locker_.release(*earlier, pod.namespace_, pod.name);
  } catch (const std::exception& e) {
    if (options_.logger) {
      options_.logger->warn("node lock release failed",
                            {{"node", std::string(*earlier)}, {"error", e.what()}});
    }
  }
}

void Scheduler::lock_node(std::string_view node, const cluster::PodRecord& pod) {
  const auto& view = pod.model->view();
  // A PodGroup member: the label of the scheduler-plugins coscheduling
  // API, or the pod's spec.schedulingGroup (HAMi §6.1 checks both).
  bool pod_group = !pod.pod_group_name.empty();
  for (size_t i = 0; i < view.labels_len; ++i) {
    if (to_sv(view.labels[i].key) == kPodGroupLabel && view.labels[i].value.len > 0)
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

}  // namespace hami::scheduling
