// Model-based randomized test of the whole scheduling state: the real
// Scheduler (filter, prioritize, bind; allocateAt bind on even seeds,
// filter on odd ones) over the file backend and over the Kubernetes
// backend with the fake API server, driven by seeded random operations
// (operations.hpp): pods created, deleted, re-created under the same name
// with a new uid, completed; filter, prioritize; bind to a fitting node, a
// non-fitting one, another node than the one the pod is bound to, the same
// node again, an unknown node, with a stale or bogus uid; the device plugin
// finishing a bound pod (bind-phase success, node lock released); API
// faults on the pod write, the allocation removal, the node lock write and
// the Binding (refused before the write, or stored and then failed, 409;
// the Binding also refused with 429, known not stored);
// dropped watches and expired history (relist); leader changes (a new
// Scheduler over the same cluster) and a closed gate; the clock moving past
// the lock expiry. Request sizes aim at one device's free room exactly and
// one unit over it (memory MiB, cores). Besides two hami-core nodes there is
// one node of two A100 GPUs in MIG mode (profiles 1g.5gb, 2g.10gb, 3g.20gb,
// 7g.40gb); a third of the pods ask nvidia.com/vgpu-mode: mig (a few
// hami-core,mig) for 1..2 instances with memory at, one MiB over or between
// the profile sizes, most others ask hami-core and some name no mode (they
// may go to either kind).
// The device plugin's finish also adds the instances' runtime identity
// (migUUID, gpuInstanceID, computeInstanceID) to hami.io/vgpu-mig-allocations.
//
// The reference model (reference_model.hpp) is computed from the LIVE pods
// as the backend stores them (the file snapshot; the fake server's objects,
// not the cache), parsed here independently of the plugins. After every
// operation (the Kubernetes backend's cache first caught up with the server,
// bounded in time) these must hold:
//  1. capacity: no device carries more memory, cores or slots than it has,
//     by the allocation annotations of every live pod (every entry is a
//     slot, also a MIG GPU's second instance in one container, as in HAMi);
//  2. ledger: scheduler.ledger() charges exactly the model — per pod
//     (uid, node, per-device memory/cores/slots and MIG reservations — those
//     of hami.io/vgpu-mig-allocations on the devices the pod lists —, no
//     reservation left, no held charge) and per device (use and holds) —
//     with one allowance: a pod whose allocation
//     write, or its removal, failed with an unknown outcome (5xx, stored
//     then failed) in an operation is "unconfirmed": the ledger may keep a
//     reservation for it, which must cover what its annotations say and
//     counts on its devices instead of them. The allowance ends, and the
//     charge must then be exact, when the pod is deleted, replaced or
//     completed, at a leader change, or after the pod's next bind with its
//     live uid to another node than the one it is bound to that was not
//     itself unconfirmed (such a bind replaces, releases or confirms it);
//  3. bound: a bound pod asking for a GPU carries its allocation
//     annotations, naming the node it is bound to;
//  4. lock: an unexpired node lock names a live pod whose bind-phase is
//     "allocating", except (until it expires) a lock left by an operation
//     in which a node write failed (refused or stored then failed), or one
//     whose holder the run deleted, replaced or completed (no device plugin
//     releases it; the next lock takes it over);
//  5. MIG: a live pod carrying its allocation has, for each of its device
//     entries on a MIG-mode GPU and in their order, one
//     hami.io/vgpu-mig-allocations entry with the same containerIndex
//     (segment), deviceIndex (position in it) and gpuUUID, and no other
//     entry; each names a profile the GPU registered, at one of the
//     placements registered for it, and its device entry carries the
//     profile's memoryMB and core; every device's mode is one the pod's
//     nvidia.com/vgpu-mode allows; on every MIG-mode GPU no two placements
//     of live pods ([start, start+size)) overlap.
// Each operation also checks its own outcome: a bind with another uid than
// the pod's never succeeds, a successful bind leaves the pod bound to that
// node, a bind through a closed gate changes nothing, scores are 0..10.
//
// A failure prints the backend, seed, mode, violations and every operation
// with its outcome, one a line. Replay: HAMI_MODEL_SEED=<n> (only that seed)
// and HAMI_MODEL_OPS=<n> (operations per seed); HAMI_MODEL_SEEDS and
// HAMI_MODEL_FIRST_SEED pick a range; HAMI_MODEL_SECONDS bounds the wall
// time of each test (it stops early and still passes when the time runs
// out, saying how far it got); HAMI_MODEL_SHRINK=1 also prints a shortened
// operation list that still fails the same way; HAMI_MODEL_AVOID=rebind,
// unfiltered-bind,binding-after,refilter leaves out those scenarios
// (operations.hpp), to look past a failure in one of them while it is being
// fixed; the suite leaves out none. scripts/model-campaign.sh runs long
// campaigns.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "file_backend.hpp"
#include "kube_backend.hpp"
#include "model_run.hpp"

namespace {

using namespace hami::model;

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0')
    return fallback;
  return std::strtoull(v, nullptr, 10);
}

struct Budget {
  uint64_t first_seed;
  uint64_t seeds;
  int ops;
  std::chrono::seconds wall;
  std::set<std::string> avoid;
};

Budget budget(uint64_t seeds, int ops, int seconds) {
  Budget b;
  b.first_seed = env_number("HAMI_MODEL_FIRST_SEED", 1);
  b.seeds = env_number("HAMI_MODEL_SEEDS", seeds);
  if (const char* one = std::getenv("HAMI_MODEL_SEED"); one != nullptr && *one != '\0') {
    b.first_seed = std::strtoull(one, nullptr, 10);
    b.seeds = 1;
  }
  b.ops = static_cast<int>(env_number("HAMI_MODEL_OPS", static_cast<uint64_t>(ops)));
  if (const char* avoid = std::getenv("HAMI_MODEL_AVOID")) {
    std::stringstream list(avoid);
    for (std::string item; std::getline(list, item, ',');) {
      if (!item.empty())
        b.avoid.insert(item);
    }
  }
  b.wall = std::chrono::seconds(env_number("HAMI_MODEL_SECONDS", static_cast<uint64_t>(seconds)));
  return b;
}

void run_campaign(std::string_view backend, const BackendFactory& factory, const Budget& b) {
  ModelEnv env;
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + b.wall;
  uint64_t seeds_run = 0;
  uint64_t ops_run = 0;
  uint64_t failures = 0;
  bool out_of_time = false;
  // Distinct failures: the first violation with its numbers blanked, and
  // the first seed that showed it.
  std::map<std::string, std::pair<uint64_t, int>> kinds;
  for (uint64_t seed = b.first_seed; seed < b.first_seed + b.seeds; ++seed) {
    if (std::chrono::steady_clock::now() > deadline) {
      out_of_time = true;
      break;
    }
    const RunResult result = run_seed(env, factory, seed, b.ops, deadline, b.avoid);
    ++seeds_run;
    ops_run += result.ops.size();
    if (!result.failed()) {
      if (result.ops.size() < static_cast<size_t>(b.ops))
        out_of_time = true;
      continue;
    }
    ++failures;
    auto& kind = kinds[violation_kind(result.violations.front())];
    if (kind.second++ == 0)
      kind.first = seed;
    if (failures <= 3) {
      ADD_FAILURE() << result.report(backend);
      if (env_number("HAMI_MODEL_SHRINK", 0) != 0) {
        const auto shrunk = shrink(env, factory, result,
                                   std::chrono::steady_clock::now() + std::chrono::seconds(120));
        const RunResult again = replay(env, factory, seed, shrunk);
        std::cout << "shortened (" << shrunk.size() << " operations):\n"
                  << again.report(backend) << std::flush;
      }
    } else {
      ADD_FAILURE() << "model run failed: backend " << backend << ", seed " << seed << ": "
                    << result.violations.front();
    }
  }
  std::cout << "model[" << backend << "]: " << seeds_run << " seeds, " << ops_run << " operations, "
            << failures << " failures" << (out_of_time ? " (stopped early: time budget spent)" : "")
            << "\n";
  for (const auto& [text, first] : kinds)
    std::cout << "  " << first.second << "x (first seed " << first.first << "): " << text << "\n";
  std::cout << std::flush;
  ::testing::Test::RecordProperty("seeds", static_cast<int>(seeds_run));
  ::testing::Test::RecordProperty("operations", static_cast<int>(ops_run));
  ::testing::Test::RecordProperty("failures", static_cast<int>(failures));
}

TEST(ModelFile, RandomSequencesKeepEveryAllocationWhole) {
  run_campaign(
      "file",
      [](const std::vector<std::string>& nodes) { return std::make_unique<FileBackend>(nodes); },
      budget(200, 500, 50));
}

TEST(ModelKube, RandomSequencesKeepEveryAllocationWhole) {
  run_campaign(
      "kube",
      [](const std::vector<std::string>& nodes) { return std::make_unique<KubeBackend>(nodes); },
      budget(8, 150, 50));
}

}  // namespace
