// The ledger follows the cluster: node inventories, pod charges from the
// allocation annotations, settling reservations, quotas; release.
#include <algorithm>
#include <memory>
#include <utility>

#include "log/logger.hpp"
#include "scheduling/allocation.hpp"
#include "scheduling/quota_limits.hpp"
#include "scheduling/scheduler.hpp"
#include "scheduling/scheduler_internal.hpp"

namespace hami::scheduling {

namespace {

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

// Whether `pod`, a version newer than the one `write` was judged on,
// settles the write's unknown outcome. Carrying the write: stored. Not
// carrying it: not stored only when the write cannot be stored on this
// version or any later one — it was conditional on the judged
// resourceVersion, or on an unbound pod that is now bound or being deleted
// (neither is undone). A write conditional only on its own keys may have
// been stored after another writer's version, which is then not the last
// word: the write's own version may still be on its way.
bool settles(const cluster::PodRecord& pod, const PodWrite& write, bool carried) {
  if (carried || write.patch.expect_resource_version)
    return true;
  return write.patch.expect_unbound && (!pod.node_name.empty() || pod.terminating);
}

}  // namespace

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
  // A finished pod holds nothing, whatever it still carries.
  if (pod && pod->uid == key && pod->phase != "Succeeded" && pod->phase != "Failed") {
    if (const auto allocations = pod_allocations(*pod)) {
      txn->put_pod(annotated_charge(*pod, *allocations, existing));
      return;
    }
  }
  txn->remove_pod(key);
}

void Scheduler::confirm_write(std::string_view key) {
  auto txn = ledger_.write();
  const PodCharge* existing = txn->pod(key);
  if (existing == nullptr || !existing->reservation || !existing->write)
    return;
  // Usually the write's own version has confirmed it already; a write that
  // changed nothing makes no new version, and no event would.
  const auto pod = cluster_.pod(existing->namespace_, existing->name);
  if (!pod || pod->uid != key || !cluster::carries(*pod, existing->write->patch))
    return;
  const auto allocations = pod_allocations(*pod);
  if (!allocations)
    return;
  PodCharge charge = annotated_charge(*pod, *allocations, existing);
  charge.write = existing->write;
  txn->put_pod(std::move(charge));
}

void Scheduler::track_lock_carrier(const std::shared_ptr<const k8s::NodeModel>& node) {
  bool carries = false;
  for (const std::string& key : lock_annotations_)
    carries = carries || node->annotation(key).has_value();
  {
    const std::lock_guard lock(lock_carriers_mu_);
    if (carries)
      lock_carriers_.insert_or_assign(std::string(node->name()), node);
    else if (const auto it = lock_carriers_.find(node->name()); it != lock_carriers_.end())
      lock_carriers_.erase(it);
  }
  // After the carriers: a mark goes only once its lock is among them.
  locks_in_flight_.seen(*node);
}

LockedNodes Scheduler::lock_carriers() const {
  const std::lock_guard lock(lock_carriers_mu_);
  LockedNodes out;
  for (const auto& [name, node] : lock_carriers_)
    out.emplace(node->name(), node);
  return out;
}

void Scheduler::node_upserted(const std::shared_ptr<const k8s::NodeModel>& node) {
  track_lock_carrier(node);
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
  {
    const std::lock_guard lock(lock_carriers_mu_);
    if (const auto it = lock_carriers_.find(name); it != lock_carriers_.end())
      lock_carriers_.erase(it);
  }
  locks_in_flight_.node_deleted(name);
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
      newer_version(pod->resource_version, existing->write->judged_version) &&
      settles(*pod, *existing->write, write != nullptr)) {
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
