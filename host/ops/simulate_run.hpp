// The simulation behind `hami-scheduler simulate` (docs/simulate.md): a
// workload placed pod by pod through the real admission, filter,
// prioritize and bind logic, once per node/GPU policy pair, each on its own
// fresh in-memory copy of the cluster.
//
// Per pod, in workload order:
//   1. admission: the webhook's decision (ops/simulate_admission.hpp). A
//      denied pod is unplaced with reason AdmissionDenied (AdmissionError
//      when the review failed); a pod the webhook leaves to another
//      scheduler (its schedulerName is not ours afterwards) is skipped.
//   2. the pod is stored, Pending, in the copy; filter over every node
//      (node name order). A pod with no managed resource (passthrough) is
//      skipped. No fitting node: unplaced, with the reason code most nodes
//      gave (the "<Code>" of HAMi's "<n>/<m> <Code>" entries, else the
//      node's whole reason, e.g. "node unregistered"; ties: the first
//      code in byte order). A failed filter call: FilterError.
//   3. prioritize over the fitting nodes; the best score wins, ties to
//      the earlier node (node name order).
//   4. bind through the scheduler (node lock, re-fit, allocation
//      annotations, Binding). A failure: unplaced, BindFailed.
//   5. the node-side device plugin is emulated as HAMi's does it once
//      every container was served: bind-phase "success", each vendor's
//      to-allocate annotation erased to its empty segments (";;" for two
//      containers), the node lock (hami.io/mutex.lock naming this pod, and
//      a vendor's own lock, ABI 1.2) released — so the next bind on the
//      node is not refused for contention.
// Every scheduler a simulation makes runs on the context's fixed clock and
// filters on the calling thread: a run is repeatable.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops/ops_context.hpp"
#include "ops/workload_parser.hpp"

namespace hami::ops {

struct SimulateOptions {
  std::vector<PolicyPair> pairs;  // empty: the context's default pair
  bool trace = false;             // keep one TraceEntry per pod
  // Called after each pod of each pair with the pair ("node/gpu"), the
  // pods done and the workload's size; may be empty.
  std::function<void(std::string_view pair, size_t done, size_t total)> progress;
};

struct TraceDevice {
  std::string vendor;  // the device plugin's name
  std::string id;
  int64_t memory_mib = 0;
  int64_t cores = 0;
};

struct TraceEntry {
  std::string pod;  // namespace/name
  enum class Outcome { placed, unplaced, skipped } outcome = Outcome::skipped;
  std::string node;   // placed
  int64_t score = 0;  // placed: the prioritize score (0..10)
  std::vector<TraceDevice> devices;
  std::string reason;  // unplaced: the reason code
  std::string detail;  // unplaced or skipped: the message behind it
};

struct PairResult {
  PolicyPair policies;
  size_t placed = 0;
  size_t unplaced = 0;
  size_t skipped = 0;
  std::map<std::string, size_t> reasons;  // unplaced pods per reason code
  // Every registered device of every node at the end of the run.
  size_t devices = 0;
  size_t devices_free = 0;  // healthy and holding no task
  size_t devices_used = 0;  // holding at least one task
  // Of the used devices: used memory / memory, used cores / cores (0..1).
  double memory_utilisation = 0;
  double core_utilisation = 0;
  // The median memory of the placements this run made (MiB per device; 0
  // when none), and the share of the free memory of healthy devices that
  // lies on devices with less free than that (or no free task slot).
  int64_t median_request_mib = 0;
  double fragmentation = 0;
  std::vector<TraceEntry> trace;  // with SimulateOptions::trace
};

struct SimulationResult {
  size_t pods = 0;
  size_t nodes = 0;
  std::vector<PairResult> pairs;
};

// Throws OpsError for a policy no scheduling plugin declares.
SimulationResult simulate(OpsContext& ctx, std::span<const WorkloadPod> workload,
                          const SimulateOptions& options);

// "binpack/spread,spread/binpack" → pairs. A comma word without '/'
// continues the previous pair's GPU policy chain: "spread/numa,binpack" is
// one pair, GPU policy "numa,binpack". Throws UsageError.
std::vector<PolicyPair> parse_policy_pairs(std::string_view text);

}  // namespace hami::ops
