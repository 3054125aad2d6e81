// The pod writes of filter and bind: who may be written to, a write and
// what became of it, its undo, and the reservation that records it.
#include <algorithm>
#include <memory>
#include <utility>

#include "log/logger.hpp"
#include "scheduling/scheduler.hpp"
#include "scheduling/scheduler_internal.hpp"

namespace hami::scheduling {

std::string Scheduler::pod_refusal(const cluster::PodRecord& pod) const {
  const std::string who = "pod " + pod.namespace_ + "/" + pod.name;
  if (!pod.node_name.empty())
    return who + " is already assigned to node \"" + pod.node_name + "\"";
  if (pod.terminating)
    return who + " is being deleted";
  if (!pod.phase.empty() && pod.phase != "Pending")
    return who + " is not pending (phase " + pod.phase + ")";
  const std::string_view scheduler = to_sv(pod.model->view().scheduler_name);
  if (!scheduler.empty() && scheduler != options_.scheduler_name) {
    return who + " is for scheduler \"" + std::string(scheduler) + "\", not \"" +
           options_.scheduler_name + "\"";
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
  // Per key: expect what is written, and remove it. A value the pod had
  // before is not put back: an earlier allocation's room may have been
  // given to another pod once this write replaced it.
  const auto plan = [](const std::vector<cluster::MetadataWrite>& writes,
                       cluster::KeyValues& expect, std::vector<cluster::MetadataWrite>& removals) {
    for (const auto& w : writes) {
      if (!w.value)
        continue;
      expect.emplace_back(w.key, *w.value);
      removals.push_back({w.key, std::nullopt});
    }
  };
  plan(patch.annotations, write.undo.expect_annotations, write.undo.annotations);
  plan(patch.labels, write.undo.expect_labels, write.undo.labels);
  write.patch = std::move(patch);
  return write;
}

namespace {

// `undo` less the keys `pod` no longer holds as the write left them.
cluster::PodMetadataPatch still_as_written(const cluster::PodMetadataPatch& undo,
                                           const cluster::PodRecord& pod) {
  cluster::PodMetadataPatch left;
  const auto keep = [&](const cluster::KeyValues& expected, bool labels,
                        cluster::KeyValues& kept_expected,
                        std::vector<cluster::MetadataWrite>& kept_removals) {
    for (const auto& [key, value] : expected) {
      const auto now_value = labels ? pod.label(key) : pod.annotation(key);
      if (!now_value || *now_value != value)
        continue;
      kept_expected.emplace_back(key, value);
      kept_removals.push_back({key, std::nullopt});
    }
  };
  keep(undo.expect_annotations, false, left.expect_annotations, left.annotations);
  keep(undo.expect_labels, true, left.expect_labels, left.labels);
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

}  // namespace hami::scheduling
