// One model run: a backend, the real Scheduler over it, the operations
// executed one by one and the invariants checked after each (see the
// header of model_test.cpp for the rules).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend.hpp"
#include "model_env.hpp"
#include "operations.hpp"
#include "reference_model.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::model {

// The nodes every run starts with: few GPUs of small memory, cores and
// split counts, so that requests often meet the free room exactly.
inline constexpr int kNodes = 2;
inline constexpr int kGpusPerNode = 2;
inline constexpr int64_t kDeviceMemory = 4000;
inline constexpr int32_t kDeviceSlots = 3;
// And one node of A100 GPUs in MIG mode with the demo cluster's profiles
// (1g.5gb, 2g.10gb, 3g.20gb, 7g.40gb).
inline constexpr const char* kMigNode = "node-mig";
inline constexpr int kMigGpus = 2;
inline constexpr int64_t kMigDeviceMemory = 40960;
inline constexpr int32_t kMigDeviceSlots = 7;
std::vector<std::string> model_nodes_json();

using BackendFactory = std::function<std::unique_ptr<Backend>(const std::vector<std::string>&)>;

class ModelRun {
 public:
  ModelRun(ModelEnv& env, Backend& backend, scheduling::AllocateAt mode);
  ~ModelRun();
  ModelRun(const ModelRun&) = delete;
  ModelRun& operator=(const ModelRun&) = delete;

  // Executes `op`, then checks every invariant. Returns the outcome as one
  // line; violations are appended to `violations`.
  std::string step(const Op& op, std::vector<std::string>& violations);

  GenContext context() const;
  void avoid(std::set<std::string> scenarios) { avoid_ = std::move(scenarios); }
  // The stored state as the last check saw it (nothing changes in between).
  const StoredState& stored() const { return current_; }

 private:
  void build_scheduler();
  void forget(const StoredState& before, const StoredPod& pod);
  std::string mutate(const Op& op, const StoredState& before);
  std::string next_uid(const std::string& name);
  std::string run_filter(const Op& op, const StoredPod& pod);
  std::string run_bind(const Op& op, const StoredPod& pod);
  std::string run_finish(const StoredState& before, const StoredPod& pod);
  // What a bind's outcome is checked against once the state is read back.
  struct BindCheck {
    std::string pod_uid;
    std::string pod_json;
    std::string used_uid;
    std::string node;
    std::string error;
    bool gate_closed = false;
    bool node_fault = false;  // a node write fault fired
  };
  void check_bind(const BindCheck& bind, const StoredState& after,
                  std::vector<std::string>& violations);
  void check(std::vector<std::string>& violations);

  ModelEnv& env_;
  Backend& backend_;
  scheduling::AllocateAt mode_;
  std::string gate_;
  std::unique_ptr<scheduling::Scheduler> scheduler_;
  std::vector<std::string> nodes_;
  std::vector<std::string> pool_;
  Allowances allowances_;
  std::map<std::string, std::vector<std::string>> last_fit_;  // uid → nodes
  std::map<std::string, std::string> stale_uid_;              // name → a former uid
  int uid_counter_ = 0;
  std::optional<BindCheck> bind_check_;
  std::set<std::string> avoid_;
  StoredState current_;
};

struct RunResult {
  uint64_t seed = 0;
  scheduling::AllocateAt mode = scheduling::AllocateAt::Bind;
  std::vector<Op> ops;                  // executed, in order
  std::vector<std::string> log;         // one line per op: text and outcome
  std::vector<std::string> violations;  // of the last op, when it failed
  bool failed() const { return !violations.empty(); }
  bool shortened = false;  // ops is a shortened list, not a seed's prefix
  std::set<std::string> avoided;
  // The seed, the mode, the violations and every operation, one a line.
  std::string report(std::string_view backend) const;
};

// A violation with its numbers blanked: the same bug in another seed
// (other pods, nodes, sizes) reads the same.
std::string violation_kind(const std::string& violation);

// Mode of a seed: even seeds allocate at bind, odd ones at filter.
scheduling::AllocateAt mode_of(uint64_t seed);

// Generates and runs up to `ops` operations from `seed`, stopping at the
// first violated invariant or at `deadline`.
RunResult run_seed(ModelEnv& env, const BackendFactory& factory, uint64_t seed, int ops,
                   std::chrono::steady_clock::time_point deadline,
                   const std::set<std::string>& avoid = {});

// Runs exactly `ops` (a replay: no generator).
RunResult replay(ModelEnv& env, const BackendFactory& factory, uint64_t seed,
                 const std::vector<Op>& ops);

// A shorter list that still fails with a violation of the same kind
// (violation_kind), by removing chunks while it does; bounded by
// `deadline`.
std::vector<Op> shrink(ModelEnv& env, const BackendFactory& factory, const RunResult& failed,
                       std::chrono::steady_clock::time_point deadline);

}  // namespace hami::model
