// Scheduler: the extender's decisions — filter, prioritize, bind — over the
// usage ledger, the device plugins and the scheduling policy plugins, with
// the cluster state as the source of truth and the place writes go.
//
// Allocation modes (config scheduler.allocateAt):
//   bind   (default) filter returns every node the pod fits on, with a
//          reason per rejected node; prioritize scores them 0..10 by the
//          node policy; bind takes the node lock, re-fits the pod on the
//          chosen node against live usage, reserves, writes the allocation
//          annotations and creates the Binding.
//   filter (HAMi-compatible) filter picks the single best node, reserves
//          and writes the allocation annotations; bind locks and binds.
// Allocation integrity (DESIGN §4), the bind's failure rules:
//   - Preconditions are judged before anything is written, and a refusal
//     changes nothing: a pod bound to another node, terminating, not
//     Pending, of another scheduler or another uid (in filter mode also a
//     bind to a node filter did not allocate on). A retried bind to the
//     node the pod is bound to is a success that writes nothing.
//   - Every pod write is conditional, checked where the pod is stored: the
//     uid, and for the allocation the pod still unbound and not being
//     deleted and every key it writes still as the attempt read it (a value,
//     or absent). Not the whole pod's resourceVersion: kube-scheduler and
//     others write the pod meanwhile (status conditions, nominatedNodeName,
//     their own keys). What else was judged does not change on an unbound
//     pod (spec.schedulerName is immutable; only the kubelet of its node
//     moves a pod out of Pending).
//   - A failed bind takes back only what this attempt wrote (in filter mode
//     the filter's allocation too), removing only the keys still as
//     written — never putting back an earlier allocation, whose room may
//     have gone to another pod meanwhile; then it releases the node lock and
//     the reservation (HAMi bug 7.7#11 kept the reservation). An allocation
//     the pod still carries keeps counting until the pod loses it.
//   - A write answered 5xx or timed out is read back: stored, the bind goes
//     on; not stored, nothing to take back. When neither the read-back nor
//     taking it back succeeds, the reservation stays, unconfirmed, until a
//     version of the pod newer than the judged one settles it (it carries
//     the write; or it does not and the write can no longer be stored: the
//     pod is bound or being deleted), the pod goes, or its next bind (which
//     reads the pod live) replaces it. A version of another writer that
//     does not carry the write settles nothing: the write, conditional on
//     its own keys, may have been stored after it.
//   - A Binding of unknown outcome takes nothing back and keeps the node
//     lock: the pod may be starting with its allocation. The next bind reads
//     the pod live.
// When in doubt the ledger over-reserves for a while; it never
// under-reserves.
//
// The ledger follows the cluster state's change feed: node inventories are
// decoded when a node's annotations change, pod charges come from the
// pods' allocation annotations (HAMi's init-container collapse and shrink).
//
// Threading: filter, prioritize and bind may run concurrently from many
// threads; the ledger never hands the same room on a device to two pods.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_state.hpp"
#include "cluster/node_lock.hpp"
#include "k8s/node.hpp"
#include "k8s/pod.hpp"
#include "plugins/device_plugin_handle.hpp"
#include "plugins/scheduling_plugin_handle.hpp"
#include "scheduling/explain.hpp"
#include "scheduling/held_locks.hpp"
#include "scheduling/locks_in_flight.hpp"
#include "scheduling/policy_choice.hpp"
#include "scheduling/preemption.hpp"
#include "scheduling/refit.hpp"
#include "scheduling/usage_ledger.hpp"
#include "scheduling/work_pool.hpp"

namespace hami::log {
class Logger;
}

namespace hami::scheduling {

struct PodFitInput;
struct QuotaContext;

enum class AllocateAt { Bind, Filter };

// "bind" / "filter"; nullopt otherwise.
std::optional<AllocateAt> parse_allocate_at(std::string_view text);

struct SchedulerOptions {
  std::string scheduler_name = "hami-scheduler";  // event source component
  // Empty: the policy plugins' defaults (host::default_policy).
  std::string node_policy;
  std::string gpu_policy;
  AllocateAt allocate_at = AllocateAt::Bind;
  std::function<int64_t()> clock;  // Unix seconds; empty = system clock
  cluster::NodeLockOptions node_lock;
  const log::Logger* logger = nullptr;  // optional; must outlive the scheduler
  // Check node health (handshake annotations) once at construction.
  bool initial_health_check = true;
  // Threads that help walk large candidate lists (the caller always works
  // too). Default: one per extra CPU the process may use, at most 3.
  std::optional<size_t> filter_workers;
  // Whether the scheduler may act now: "" when it may, else the reason
  // (e.g. "not the leader: …", "cluster cache not synced: …"). filter
  // answers the reason in FilterOutcome.error and bind returns it, without
  // touching the cluster. Empty function: always open.
  std::function<std::string()> gate;
  // PodGroup members (label scheduling.x-k8s.io/pod-group non-empty) retry
  // a contended node lock every 100 ms for this long before bind fails
  // (HAMi --node-lock-retry-timeout); 0 disables the retry.
  std::chrono::milliseconds pod_group_lock_retry{std::chrono::seconds(28)};
  // How the PodGroup retry waits; empty: std::this_thread::sleep_for.
  std::function<void(std::chrono::milliseconds)> sleep;
};

// The PodGroup label HAMi's bind looks at (scheduler-plugins coscheduling).
inline constexpr std::string_view kPodGroupLabel = "scheduling.x-k8s.io/pod-group";

struct FilterOutcome {
  bool passthrough = false;                         // no managed resource: echo the candidates
  std::vector<size_t> fit;                          // positions of fitting candidates, input order
  std::map<std::string, std::string> failed;        // node → reason
  std::map<std::string, std::string> unresolvable;  // node → reason
  std::string error;                                // the whole call failed
};

struct HostScore {
  std::string host;
  int64_t score = 0;  // 0..10
};

class Scheduler final : private cluster::ClusterWatcher {
 public:
  // `devices`, `policies` and `cluster` must outlive the scheduler. Watches
  // the cluster (replaying its contents) before returning.
  Scheduler(cluster::ClusterState& cluster, std::span<const host::DevicePluginHandle> devices,
            std::span<const host::SchedulingPluginHandle> policies, SchedulerOptions options);
  ~Scheduler() override;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // NodeNames mode (nodeCacheCapable): nodes come from the cluster state.
  FilterOutcome filter(const k8s::PodModel& pod, std::span<const std::string> node_names);
  // Full Nodes mode: devices are read from the given Node objects (reusing
  // the cached decode when their annotations match), usage from the ledger.
  FilterOutcome filter(const k8s::PodModel& pod, std::span<const k8s::NodeModel* const> nodes);
  // The same, with a memo per node (null: none; `memos` empty: none at
  // all) for the decode of a node the ledger does not hold with the same
  // annotations: read instead of decoding when it holds one, given the
  // decode otherwise.
  FilterOutcome filter(const k8s::PodModel& pod, std::span<const k8s::NodeModel* const> nodes,
                       std::span<const NodeDevicesMemo* const> memos);

  // Node policy scores 0..10 for the given nodes (unknown nodes score 0).
  std::vector<HostScore> prioritize(const k8s::PodModel& pod,
                                    std::span<const std::string> node_names);

  // Binds; returns "" on success, else the error text for
  // ExtenderBindingResult.Error.
  std::string bind(std::string_view namespace_, std::string_view name, std::string_view uid,
                   std::string_view node);

  // The NUMA refit of one container onto allowed devices (refit.hpp,
  // docs/refit.md): judged against the live usage under the ledger's
  // exclusive lock, recorded as a reservation while its annotation write is
  // in flight (as a bind's), never touching the node lock the pod holds.
  RefitOutcome refit(const RefitRequest& request);

  // Why `pod` fits each of `node_names` (every node of the cluster when
  // empty) or not, per node and device (explain.hpp, docs/explain.md):
  // judged on the ledger as it is; never reserves, locks or writes.
  Explanation explain(const k8s::PodModel& pod, std::span<const std::string> node_names = {}) const;

  // The preempt verb (preemption.hpp, docs/preemption.md): per candidate
  // node, kube-scheduler's victims plus the smallest set of lower-priority
  // pods holding this scheduler's devices whose removal lets `pod` fit;
  // nodes where none does are dropped. Read-only, on the ledger as it is.
  PreemptionOutcome preempt(const k8s::PodModel& pod,
                            std::span<const PreemptionCandidate> candidates) const;

  // One registration/health pass over every node (HAMi's 15 s loop): runs
  // each vendor's node_health, writes the annotations it asks for, marks
  // unhealthy vendors and runs their cleanup.
  void check_node_health();

  const UsageLedger& ledger() const { return ledger_; }
  const cluster::ClusterState& cluster() const { return cluster_; }
  std::span<const host::DevicePluginHandle> devices() const { return devices_; }
  AllocateAt allocate_at() const { return options_.allocate_at; }
  const SchedulerOptions& options() const { return options_; }

 private:
  struct Candidate;
  struct PodContext;
  struct Reservation;
  // The fit input of the pod of `ctx` (scheduler_internal.hpp).
  PodFitInput fit_input(const PodContext& ctx, const QuotaContext* quota) const;

  // ClusterWatcher
  void node_upserted(const std::shared_ptr<const k8s::NodeModel>& node) override;
  void node_deleted(std::string_view name) override;
  void pod_upserted(const std::shared_ptr<const cluster::PodRecord>& pod) override;
  void pod_deleted(const std::shared_ptr<const cluster::PodRecord>& pod) override;
  void quotas_changed() override;

  int64_t now() const;
  // After a write conditional on `pod`'s (unbound) version was stored:
  // releases this pod's lock on the node its earlier allocation names, if
  // that is not `node` (see scheduler_bind.cpp).
  void release_earlier_lock(const cluster::PodRecord& pod, std::string_view node);
  // Takes the node lock for bind; PodGroup members retry contention (see
  // SchedulerOptions::pod_group_lock_retry).
  void lock_node(std::string_view node, const cluster::PodRecord& pod);
  std::string pod_key(const hami_pod_view& pod) const;
  // nullopt with `error` when a plugin call fails or a plugin reports a
  // value of the pod unusable (its messages, "; "-joined).
  std::optional<PodContext> pod_context(const hami_pod_view& pod, std::string& error) const;
  FilterOutcome run_filter(const hami_pod_view& pod, std::vector<Candidate>& candidates);
  std::optional<Reservation> reserve(const PodContext& ctx, std::string_view node,
                                     std::string& reason);
  enum class WriteOutcome { stored, not_stored, unknown };
  // Why `pod` may not be given devices now ("" when it may): bound
  // already, terminating, not pending, or another scheduler's.
  std::string pod_refusal(const cluster::PodRecord& pod) const;
  // The same for a bind to `node`; in filter mode also an allocation
  // filter made on another node.
  std::string bind_refusal(const cluster::PodRecord& pod, std::string_view node) const;
  // Whether the pod's reservation holds a write of unknown outcome.
  bool unconfirmed(std::string_view key) const;
  // `patch` written to `pod` (its uid a precondition), and what became of
  // it: after a 5xx or timeout the pod is read back; unknown when that
  // fails too. `error`: the write's error text.
  WriteOutcome write_pod(const cluster::PodRecord& pod, const cluster::PodMetadataPatch& patch,
                         std::string& error);
  // The write of `patch` to `before`, with the undo that removes what it
  // sets while it is unchanged.
  static PodWrite plan_write(const cluster::PodRecord& before, cluster::PodMetadataPatch patch);
  // Takes `write` back while what it wrote is unchanged: stored (taken
  // back), not_stored (nothing of it left), unknown (it may still be there).
  WriteOutcome undo_write(const cluster::PodRecord& pod, const PodWrite& write);
  // After a write stored: the pod's reservation becomes the charge of the
  // annotations the cluster state shows, if they carry the write.
  void confirm_write(std::string_view key);
  // Records on the pod's reservation the write that stores it.
  void attach_write(std::string_view key, std::shared_ptr<const PodWrite> write);
  // Keeps the pod's reservation as one whose write is of unknown outcome.
  void mark_unconfirmed(std::string_view key, const PodWrite& write);
  // The locked part of a bind: the node lock, the reservation, the
  // allocation write, the Binding, and on failure taking back what this
  // attempt wrote.
  std::string bind_devices(const cluster::PodRecord& pod, const PodContext& ctx,
                           std::string_view node, const std::function<std::string()>& succeed);
  // Drops the pod's reservation; the charge its allocation annotations
  // give (if it still carries any) stays.
  void release(std::string_view key);
  // What the pod's allocation annotations record (nullopt without them);
  // logs an annotation that does not decode.
  std::optional<std::vector<VendorAllocation>> pod_allocations(const cluster::PodRecord& pod) const;
  // The ledger charge of those allocations (`existing`: the pod's charge
  // so far, which may have shrunk).
  static PodCharge annotated_charge(const cluster::PodRecord& pod,
                                    const std::vector<VendorAllocation>& allocations,
                                    const PodCharge* existing);
  void event(const hami_pod_view& pod, bool warning, std::string_view reason, std::string message);
  void event(const cluster::PodRecord& pod, bool warning, std::string_view reason,
             std::string message);

  cluster::ClusterState& cluster_;
  std::span<const host::DevicePluginHandle> devices_;
  PolicyCatalog policies_;
  SchedulerOptions options_;
  UsageLedger ledger_;
  cluster::NodeLocker locker_;
  // Per vendor: the locker of its own node lock (HAMI_NODE_LOCK_OWN, ABI
  // 1.2), or null.
  std::vector<std::unique_ptr<cluster::NodeLocker>> own_lockers_;
  // Thread-safe; const walks (explain) share it with filter.
  mutable WorkPool pool_;
  // The nodes carrying a node lock annotation (the shared one or a
  // vendor's own), kept from the change feed so that filter looks at these
  // few rather than at every node of the cluster.
  std::vector<std::string> lock_annotations_;
  mutable std::mutex lock_carriers_mu_;
  StringMap<std::shared_ptr<const k8s::NodeModel>> lock_carriers_;
  void track_lock_carrier(const std::shared_ptr<const k8s::NodeModel>& node);
  LockedNodes lock_carriers() const;
  // The locks binds of this process are taking and the feed does not show
  // yet; filter counts them as it counts the lock carriers.
  LocksInFlight locks_in_flight_;
};

}  // namespace hami::scheduling
