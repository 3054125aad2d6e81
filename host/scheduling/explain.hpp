// Explain: why a pod fits a node or not, per node and per device, judged by
// the scheduling core on the ledger as it is, without reserving, locking or
// writing anything (Scheduler::explain, docs/explain.md).
//
// Per node: the verdict and HAMi's reason as filter gives it, the node
// score under the pod's node policy (its policy annotations honoured, the
// vendors' placement terms included) and the rank among the fitting nodes,
// the devices fit would choose. Per device of a vendor the pod asks for:
// whether the device alone takes one device of the request (the vendor's
// fit run on that device only, count 1), HAMi's reason code when not, and
// the numbers behind the verdict in words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hami::scheduling {

struct DeviceExplanation {
  std::string id;
  uint32_t index = 0;  // the device's registered index
  bool fits = false;   // the device alone takes one device of the request
  std::string reason;  // HAMi's reason code ("CardInsufficientMemory"); "" when it fits
  std::string detail;  // the numbers behind the verdict, in words
  // MiB the device lacks for the request (CardInsufficientMemory), else 0.
  int64_t memory_short_mib = 0;
};

struct NodeExplanation {
  std::string name;
  bool fits = false;
  // Fitting nodes: the score prioritize answers (0..10), the node policy's
  // own score it is rounded from, and the rank among the fitting nodes (1
  // best: the highest policy score, the earlier node on ties, as filter
  // picks). 0 for a node that does not fit.
  int64_t score = 0;
  double policy_score = 0;
  size_t rank = 0;
  std::vector<std::string> chosen;  // device ids fit chose, in placement order
  std::vector<DeviceExplanation> devices;
  // A node that does not fit: the reason as filter (or, for a held node
  // lock, bind) gives it; the same in words; the short group it is counted
  // under in the summary ("no GPU registered", "insufficient memory").
  std::string reason;
  std::string detail;
  std::string category;
};

struct Explanation {
  std::string pod;  // namespace/name
  std::string node_policy;
  std::string gpu_policy;
  // One line: "3 of 5 nodes fit; best gpu-a100-1 (score 4)", or for a pod
  // that fits nowhere the groups of reasons, largest first.
  std::string summary;
  // The fitting nodes by rank, then the others in candidate order.
  std::vector<NodeExplanation> nodes;
  // Set when the pod itself cannot be scheduled (a request a plugin refuses
  // to read, a malformed weights annotation); nothing else is then set.
  std::string error;
};

// The JSON of docs/explain.md: keys in a fixed order, compact.
std::string explanation_json(const Explanation& explanation);

// The terminal form: the summary line, then one block per node with a
// table of its devices.
std::string explanation_text(const Explanation& explanation);

}  // namespace hami::scheduling
