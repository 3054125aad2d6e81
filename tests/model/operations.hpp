// The operations of a model run, as concrete records (a run is replayed
// from its list), their one-line text, and the seeded generator that draws
// them from the current stored state.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "backend.hpp"
#include "stored_state.hpp"

namespace hami::model {

enum class OpKind {
  create,          // a pending pod `pod` asking `limits`
  remove,          // delete pod `pod`
  recreate,        // delete `pod` and create it again with a new uid, asking `limits`
  complete,        // `pod` reaches phase Succeeded
  filter,          // scheduler.filter over every node
  prioritize,      // scheduler.prioritize over every node
  bind,            // scheduler.bind(`pod`, uid by `uid`, `node`)
  finish,          // the device plugin serves bound `pod`: bind-phase success, lock released
  clock,           // the clock moves `seconds` on
  leader,          // the scheduler is destroyed and built again over the same cluster
  gate,            // SchedulerOptions::gate closes (or opens again)
  drop_watches,    // every watch stream is cut, then `then` is made on the server at once
  expire_history,  // the server forgets its history and cuts the watches, then `then`
                   // is made at once: the re-watch gets 410 and relists
};

enum class UidChoice { live, stale, bogus };

struct Op {
  OpKind kind = OpKind::filter;
  std::string pod;
  std::string node;
  UidChoice uid = UidChoice::live;
  Fault fault = Fault::none;
  std::string limits;  // JSON array of per-container limits objects
  std::string mode;    // create, recreate: the pod's nvidia.com/vgpu-mode, "" none
  int64_t seconds = 0;
  // drop_watches / expire_history: the change made while the cache is
  // blind (create, remove, recreate, complete or finish of `pod`).
  OpKind then = OpKind::create;
};

std::string describe(const Op& op);

struct GenContext {
  std::vector<std::string> nodes;  // registered node names
  std::vector<std::string> pool;   // pod names to use
  bool filter_writes = false;      // allocateAt filter: filter writes (faults apply)
  bool watches = false;            // the backend has watches to fault
  // Scenarios left out (HAMI_MODEL_AVOID), to look past a failure in one of
  // them while it is being fixed (each once failed, see the scheduler's
  // tests "found by the model test"):
  //   rebind          a bind of a bound pod to another node
  //   unfiltered-bind allocateAt filter: a bind to another node than the
  //                   one the pod's allocation names, or of a pod without one
  //   binding-after   a Binding stored and then answered 5xx
  //   refilter        a filter of a pod that carries an allocation already
  std::set<std::string> avoid;
  // Per pod uid, the nodes its last filter found fitting.
  const std::map<std::string, std::vector<std::string>>* last_fit = nullptr;
};

class OpGenerator {
 public:
  explicit OpGenerator(uint64_t seed) : rng_(seed) {}
  Op next(const StoredState& stored, const GenContext& ctx);

 private:
  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng_() % n); }
  bool chance(int percent) { return static_cast<int>(rng_() % 100) < percent; }
  // The limits and vgpu-mode of a new pod into `op`.
  void draw_pod(const StoredState& stored, Op& op);
  std::string draw_limits(const StoredState& stored);
  std::string draw_mig_limits();
  Fault draw_fault(bool writes_pod);

  std::mt19937_64 rng_;
};

}  // namespace hami::model
