// Preemption: which pods to evict on a node so that a pending pod fits its
// GPUs, judged as kube-scheduler judges victims (docs/preemption.md).
//
// kube-scheduler ranks a node's victims with pickOneNodeForPreemption: the
// fewest PodDisruptionBudget violations, then the lowest highest priority
// among the victims, then the smallest sum of priorities (each offset by
// 2^31 so every term is positive), then the fewest victims, then the latest
// start time among the victims of the highest priority. The search below
// finds, for one node, the set of extra victims whose union with the victims
// kube-scheduler proposed is smallest by that key and lets the pod fit.
//
// The cluster view holds no PodDisruptionBudgets: the first key is left to
// kube-scheduler's proposal (its NumPDBViolations is answered as sent).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hami::scheduling {

// What kube-scheduler ranks a victim by.
struct VictimRank {
  int32_t priority = 0;  // spec.priority (0 when unset)
  // status.startTime in Unix seconds; kNotStarted when absent (kube-scheduler
  // takes "now" then, later than any start).
  int64_t start = std::numeric_limits<int64_t>::max();
  static constexpr int64_t kNotStarted = std::numeric_limits<int64_t>::max();
};

// kube-scheduler's preference between victim sets, smaller is better
// (pickOneNodeForPreemption without the PDB term).
struct VictimSetKey {
  int64_t highest_priority = std::numeric_limits<int64_t>::min();  // none: min
  int64_t priority_sum = 0;                                        // Σ (priority + 2^31)
  size_t count = 0;
  int64_t earliest_start_negated = std::numeric_limits<int64_t>::min();  // latest is best
  friend auto operator<=>(const VictimSetKey&, const VictimSetKey&) = default;
};

VictimSetKey victim_set_key(std::span<const VictimRank> victims);

// `a` is evicted after `b` by kube-scheduler's MoreImportantPod: higher
// priority first, then the earlier start.
bool more_important(const VictimRank& a, const VictimRank& b);

struct VictimSearch {
  std::vector<VictimRank> kept;        // evicted in any case (kube-scheduler's)
  std::vector<VictimRank> candidates;  // may be added
  // Per candidate: its class; candidates of one class are interchangeable
  // (same rank, same charge), so only how many of a class are taken
  // matters. Empty: every candidate is its own class.
  std::vector<size_t> class_of;
  // Whether the pod fits with `kept` and these candidates removed.
  std::function<bool(std::span<const size_t>)> fits;
  // Fit calls the walk over the sets may make.
  size_t budget = 2048;
};

struct VictimChoice {
  bool found = false;          // some set lets the pod fit
  std::vector<size_t> chosen;  // candidate indexes, ascending
  bool exact = false;          // proven smallest by VictimSetKey
  size_t fit_calls = 0;
};

// The smallest set of candidates (with `kept`) by VictimSetKey that lets the
// pod fit. First the lowest priority level whose pods, all removed, let it
// fit (pods above it would only raise the first key); then the sets of the
// pods up to that level are walked in increasing key order until one fits:
// the smallest (exact). When the budget runs out first, kube-scheduler's own
// reprieve over those pods (most important first, put back when the pod
// still fits) answers, not proven smallest. Assumes that removing more pods
// never makes the pod fit worse (true of memory, cores and slots).
VictimChoice choose_victims(const VictimSearch& search);

// One victim kube-scheduler proposes: its uid, and when the request carried
// the whole pod, its priority and start time (used for a pod the cluster
// view does not hold).
struct ProposedVictim {
  std::string uid;
  std::optional<VictimRank> rank;
};

// One candidate node of ExtenderPreemptionArgs.
struct PreemptionCandidate {
  std::string node;
  std::vector<ProposedVictim> victims;  // kube-scheduler's, as sent
  int64_t pdb_violations = 0;
};

// One node kept in the answer: its victims' uids, most important first (as
// kube-scheduler orders them), and the PDB violations as proposed.
struct NodeVictims {
  std::string node;
  std::vector<std::string> uids;
  int64_t pdb_violations = 0;
};

struct PreemptionOutcome {
  // The pod asks for no device the scheduler manages: the candidates stand
  // as proposed.
  bool passthrough = false;
  std::vector<NodeVictims> nodes;              // the nodes kept, in request order
  std::map<std::string, std::string> dropped;  // node -> why it was dropped
  // Nodes whose answer is the greedy one because the exact search ran out
  // of its budget.
  size_t inexact = 0;
  std::string error;  // the whole call failed
};

}  // namespace hami::scheduling
