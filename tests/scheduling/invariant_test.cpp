// Invariant: concurrent filter + bind rounds from several threads never put
// more memory, cores or tasks on a GPU than it has, and a failed bind leaves
// no reservation (nor allocation annotation) behind. The same rounds again
// while Binding creation, pod writes and node writes (the lock) fail at
// random: an allocation a pod was left with still counts, on the ledger and
// against the capacity.
// A node whose GPU is in MIG mode takes part: MIG pods (and pods naming no
// mode) get instances of it, and no two live pods' instances ever share a
// slice of it. Bounded in pods, attempts and wall time.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "cluster/node_lock.hpp"
#include "flaky_cluster.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::AllocateAt;
using scheduling::SchedulerOptions;

constexpr int kNodes = 3;
constexpr int kGpusPerNode = 2;
constexpr int64_t kMemory = 10000;
constexpr int32_t kSlots = 4;
// node-mig: one A100 in MIG mode, 7 slices.
constexpr const char* kMigNode = "node-mig";
constexpr const char* kMigGpu = "GPU-mig-0";
constexpr int64_t kMigMemory = 40960;
constexpr int32_t kMigSlots = 7;
constexpr const char* kMigProfiles =
    R"([{"name":"1g.5gb","memoryMB":4864,"core":14,"sliceCount":1,"placements":[)"
    R"({"start":0,"size":1},{"start":1,"size":1},{"start":2,"size":1},{"start":3,"size":1},)"
    R"({"start":4,"size":1},{"start":5,"size":1},{"start":6,"size":1}]},)"
    R"({"name":"2g.10gb","memoryMB":9856,"core":28,"sliceCount":2,"placements":[)"
    R"({"start":0,"size":2},{"start":2,"size":2},{"start":4,"size":2}]},)"
    R"({"name":"3g.20gb","memoryMB":19968,"core":42,"sliceCount":3,"placements":[)"
    R"({"start":0,"size":4},{"start":4,"size":4}]},)"
    R"({"name":"7g.40gb","memoryMB":40192,"core":100,"sliceCount":7,"placements":[)"
    R"({"start":0,"size":8}]}])";

struct Capacity {
  int64_t memory = 0;
  int32_t slots = 0;
};
Capacity capacity_of(std::string_view device_id) {
  return device_id == kMigGpu ? Capacity{kMigMemory, kMigSlots} : Capacity{kMemory, kSlots};
}
constexpr int kPods = 48;
constexpr int kThreads = 4;
// The rounds go on until enough binds have succeeded (and, with faults,
// enough faults were injected): how many operations that takes depends on
// how often concurrent binds meet on a node lock, which is timing. The
// operation count and the deadline only bound a run that stops making
// progress.
constexpr int kBindsWanted = 150;
constexpr int kBindsWantedWithFaults = 80;
constexpr int kFaultsWanted = 40;
constexpr int kMaxOperations = 40000;
constexpr auto kDeadline = std::chrono::seconds(60);

std::string cluster_yaml() {
  std::string yaml = "kind: List\nitems:\n";
  for (int n = 0; n < kNodes; ++n) {
    std::string reg = "[";
    for (int g = 0; g < kGpusPerNode; ++g) {
      if (g > 0)
        reg += ",";
      reg += R"({"id":"GPU-)" + std::to_string(n) + "-" + std::to_string(g) + R"(","index":)" +
             std::to_string(g) + R"(,"count":)" + std::to_string(kSlots) + R"(,"devmem":)" +
             std::to_string(kMemory) + R"(,"devcore":100,"type":"NVIDIA","health":true})";
    }
    reg += "]";
    yaml += "- kind: Node\n  metadata:\n    name: node-" + std::to_string(n) +
            "\n    annotations:\n      hami.io/node-nvidia-register: '" + reg +
            "'\n  status: {allocatable: {nvidia.com/gpu: \"8\"}}\n";
  }
  yaml += std::string("- kind: Node\n  metadata:\n    name: ") + kMigNode +
          "\n    annotations:\n      hami.io/node-nvidia-register: '[{\"id\":\"" + kMigGpu +
          "\",\"index\":0,\"count\":" + std::to_string(kMigSlots) +
          ",\"devmem\":" + std::to_string(kMigMemory) +
          ",\"devcore\":100,\"type\":\"NVIDIA A100-SXM4-40GB\",\"mode\":\"mig\",\"health\":true,"
          "\"migProfiles\":" +
          kMigProfiles + "}]'\n  status: {allocatable: {nvidia.com/gpu: \"7\"}}\n";
  return yaml;
}

// The slices [start, start + size) each live pod's MIG instances take on
// the MIG GPU, from hami.io/vgpu-mig-allocations; a second pod on a slice
// already taken is a violation.
std::vector<std::string> overlapping_instances(const cluster::ClusterState& cluster) {
  std::vector<std::string> out;
  std::map<int64_t, std::string> taken;  // slice → pod
  for (const auto& pod : cluster.pods()) {
    const auto value = pod->annotation("hami.io/vgpu-mig-allocations");
    if (!value)
      continue;
    rapidjson::Document doc;
    doc.Parse(value->data(), value->size());
    if (doc.HasParseError() || !doc.IsArray()) {
      out.push_back(pod->name + ": unreadable MIG allocations " + std::string(*value));
      continue;
    }
    for (const auto& e : doc.GetArray()) {
      if (std::string_view(e["gpuUUID"].GetString()) != kMigGpu)
        continue;
      const int64_t start = e["placement"]["start"].GetInt64();
      const int64_t size = e["placement"]["size"].GetInt64();
      for (int64_t slice = start; slice < start + size; ++slice) {
        const auto [it, fresh] = taken.emplace(slice, pod->name);
        if (!fresh)
          out.push_back("slice " + std::to_string(slice) + " of " + kMigGpu + ": " + it->second +
                        " and " + pod->name);
      }
    }
  }
  return out;
}

struct Totals {
  int64_t memory = 0;
  int64_t cores = 0;
  int32_t slots = 0;
};

// Parses "<id>,<type>,<mem>,<cores>:...;..." independently of the plugins.
void add_allocation(std::string_view value, std::map<std::string, Totals>& totals) {
  size_t start = 0;
  while (start < value.size()) {
    size_t end = value.find_first_of(":;", start);
    if (end == std::string_view::npos)
      end = value.size();
    const std::string_view entry = value.substr(start, end - start);
    if (!entry.empty()) {
      const size_t c1 = entry.find(',');
      const size_t c2 = entry.find(',', c1 + 1);
      const size_t c3 = entry.find(',', c2 + 1);
      Totals& t = totals[std::string(entry.substr(0, c1))];
      t.memory += std::stoll(std::string(entry.substr(c2 + 1, c3 - c2 - 1)));
      t.cores += std::stoll(std::string(entry.substr(c3 + 1)));
      t.slots += 1;
    }
    start = end + 1;
  }
}

// Runs the rounds with the cluster's pod writes and Bindings failing at
// `failure_rate`, then checks the invariants.
void run_rounds(AllocateAt mode, double failure_rate) {
  SchedulingEnv env(cluster_yaml());
  env.scheduler.reset();
  FlakyCluster flaky(*env.cluster, 7);
  SchedulerOptions options;
  options.allocate_at = mode;
  options.clock = [&env] { return env.now.load(); };
  scheduling::Scheduler scheduler(flaky, env.registry.devices(), env.registry.scheduling(),
                                  options);
  const bool faults = failure_rate > 0;
  cluster::NodeLocker device_plugin(*env.cluster, [&] { return env.now.load(); });

  std::mt19937 rng(20250615);
  std::vector<std::string> names;
  for (int n = 0; n < kNodes; ++n)
    names.push_back("node-" + std::to_string(n));
  std::vector<std::string> pods;
  names.push_back(kMigNode);
  for (int i = 0; i < kPods; ++i) {
    const int gpus = 1 + static_cast<int>(rng() % 2);
    const int mem = 1000 + static_cast<int>(rng() % 5) * 1000;
    const int cores = static_cast<int>(rng() % 4) * 20;
    // Every fourth pod asks for MIG instances (4000 to 20000 MiB: the
    // 1g, 2g and 3g profiles), the others for hami-core shares.
    const bool mig = i % 4 == 0;
    const std::string json =
        mig ? pod_json("ns", "p" + std::to_string(i), "uid-" + std::to_string(i),
                       {{{"nvidia.com/gpu", std::to_string(gpus)},
                         {"nvidia.com/gpumem", std::to_string(4000 + (mem - 1000) * 4)}}},
                       {}, R"({"nvidia.com/vgpu-mode":"mig"})")
            : pod_json("ns", "p" + std::to_string(i), "uid-" + std::to_string(i),
                       {{{"nvidia.com/gpu", std::to_string(gpus)},
                         {"nvidia.com/gpumem", std::to_string(mem)},
                         {"nvidia.com/gpucores", std::to_string(cores)}}},
                       {}, R"({"nvidia.com/vgpu-mode":"hami-core"})");
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    env.cluster->upsert(doc);
    pods.push_back(json);
  }

  // Failed binds the rounds below may or may not meet (contention is a
  // race): first ones that fail for certain, each leaving nothing behind — a pod
  // larger than any GPU (bind mode: the bind fits), and a node locked by
  // another pod. The faults start after them.
  int certain_failures = 0;
  {
    const std::string json =
        pod_json("ns", "too-big", "uid-too-big",
                 {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", std::to_string(kMemory + 1)}}},
                 {}, R"({"nvidia.com/vgpu-mode":"hami-core"})");
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    env.cluster->upsert(doc);
    if (mode == AllocateAt::Bind) {
      EXPECT_EQ(scheduler.bind("ns", "too-big", "uid-too-big", "node-0"),
                "pod ns/too-big does not fit on node node-0: 2/2 CardInsufficientMemory");
      ++certain_failures;
    } else {
      // In filter mode the fit is filter's.
      EXPECT_TRUE(scheduler.filter(pod_from_json(json), names).fit.empty());
    }
    EXPECT_EQ(scheduler.ledger().read()->pod("uid-too-big"), nullptr);
    EXPECT_FALSE(env.cluster->pod("ns", "too-big")->annotation("hami.io/vgpu-node"));
    env.cluster->delete_pod("ns", "too-big");

    const std::string small = pod_json("ns", "locked-out", "uid-locked-out",
                                       {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1"}}});
    doc.Parse(small.c_str());
    env.cluster->upsert(doc);
    device_plugin.lock("node-1", "ns", "holder");
    const auto holder = pod_json("ns", "holder", "uid-holder", {{{"cpu", "1"}}});
    doc.Parse(holder.c_str());
    env.cluster->upsert(doc);
    if (mode == AllocateAt::Filter) {
      // Filter places it (on node-1, the only candidate) and writes its
      // devices; the failed bind takes them back.
      const std::vector<std::string> only = {"node-1"};
      ASSERT_EQ(scheduler.filter(pod_from_json(small), only).fit, std::vector<size_t>{0});
    }
    EXPECT_EQ(scheduler.bind("ns", "locked-out", "uid-locked-out", "node-1"),
              "node node-1 has been locked within 5m0s: node lock contention");
    ++certain_failures;
    EXPECT_EQ(scheduler.ledger().read()->pod("uid-locked-out"), nullptr);
    EXPECT_FALSE(env.cluster->pod("ns", "locked-out")->annotation("hami.io/vgpu-node"));
    device_plugin.release("node-1", "ns", "holder");
    env.cluster->delete_pod("ns", "locked-out");
    env.cluster->delete_pod("ns", "holder");
  }

  flaky.failure_rate = failure_rate;
  const int binds_wanted = faults ? kBindsWantedWithFaults : kBindsWanted;
  const auto started = std::chrono::steady_clock::now();
  std::atomic<int> next{0};
  std::atomic<int> bound{0};
  std::atomic<int> bound_on_mig{0};
  std::atomic<int> failed_binds{0};
  std::atomic<bool> stop_checker{false};
  std::atomic<int> violations{0};

  // Watches the ledger while binds run: no device is ever over its capacity.
  std::thread checker([&] {
    while (!stop_checker.load()) {
      {
        const auto snapshot = scheduler.ledger().read();
        for (const auto& [name, entry] : snapshot->nodes()) {
          const Capacity cap = capacity_of(name == kMigNode ? kMigGpu : "");
          for (const auto& use : entry.use[0]) {
            if (use.memory_mib > cap.memory || use.cores > 100 || use.used > cap.slots)
              violations++;
          }
        }
      }
      std::this_thread::yield();
    }
  });

  // Each operation takes one pod: a bound pod completes (deleted and
  // re-created pending, freeing its devices), a pending pod is filtered and
  // bound to a random fitting node. Two threads never work on one pod.
  std::vector<std::mutex> pod_mutex(kPods);
  std::atomic<int> dirty_failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      std::mt19937 local(static_cast<uint32_t>(t) + 1);
      for (int op = next++; op < kMaxOperations; op = next++) {
        if (std::chrono::steady_clock::now() - started > kDeadline)
          return;
        if (bound.load() >= binds_wanted && (!faults || flaky.injected.load() >= kFaultsWanted))
          return;
        if (faults && op % 50 == 0)
          env.now += 301;  // past the lock timeout: locks left behind expire
        const int i = static_cast<int>(local() % kPods);
        std::unique_lock guard(pod_mutex[static_cast<size_t>(i)], std::try_to_lock);
        if (!guard.owns_lock())
          continue;
        const std::string name = "p" + std::to_string(i);
        const std::string uid = "uid-" + std::to_string(i);
        const auto record = env.cluster->pod("ns", name);
        if (!record->node_name.empty()) {
          env.cluster->delete_pod("ns", name);
          rapidjson::Document doc;
          doc.Parse(pods[static_cast<size_t>(i)].c_str());
          env.cluster->upsert(doc);
          continue;
        }
        const auto pod = pod_from_json(pods[static_cast<size_t>(i)]);
        const auto out = scheduler.filter(pod, names);
        if (out.fit.empty())
          continue;
        const std::string node = names[out.fit[local() % out.fit.size()]];
        const std::string error = scheduler.bind("ns", name, uid, node);
        if (error.empty()) {
          bound++;
          if (node == kMigNode)
            bound_on_mig++;
          // The node-side plugin serves the pod and releases the lock.
          device_plugin.release(node, "ns", name);
          continue;
        }
        failed_binds++;
        // A failed bind leaves no reservation behind, and no allocation
        // unless a removal failed; one that stayed is counted. With faults
        // a reservation may stay: its write failed unconfirmed and could
        // not be removed, so the pod may carry it.
        const auto snapshot = scheduler.ledger().read();
        const auto* charge = snapshot->pod(uid);
        const bool allocated =
            env.cluster->pod("ns", name)->annotation("hami.io/vgpu-devices-allocated").has_value();
        const bool reserved = charge != nullptr && charge->reservation;
        if ((allocated && !faults) || (reserved && !faults) ||
            (!reserved && (charge != nullptr) != allocated)) {
          dirty_failures++;
        }
      }
    });
  }
  for (auto& w : workers)
    w.join();
  stop_checker = true;
  checker.join();
  ASSERT_LT(std::chrono::steady_clock::now() - started, kDeadline) << "did not finish in time";

  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(dirty_failures.load(), 0);
  EXPECT_GE(bound.load(), binds_wanted) << "the rounds stopped making progress";
  EXPECT_GT(bound_on_mig.load(), 0) << "no pod was bound to the MIG node";
  EXPECT_EQ(certain_failures, mode == AllocateAt::Bind ? 2 : 1);
  if (faults) {
    EXPECT_GE(flaky.injected.load(), kFaultsWanted);
  }

  // The source of truth: the pods' allocation annotations — the bound
  // pods', and with faults also those a failed removal left behind. No
  // device holds more than it has.
  const auto totals_of_annotations = [&] {
    std::map<std::string, Totals> out;
    for (const auto& pod : env.cluster->pods()) {
      if (const auto allocated = pod->annotation("hami.io/vgpu-devices-allocated"))
        add_allocation(*allocated, out);
    }
    return out;
  };
  for (const auto& [id, t] : totals_of_annotations()) {
    EXPECT_LE(t.memory, capacity_of(id).memory) << id;
    EXPECT_LE(t.cores, 100) << id;
    EXPECT_LE(t.slots, capacity_of(id).slots) << id;
  }
  EXPECT_EQ(overlapping_instances(*env.cluster), std::vector<std::string>{});
  // Reservations whose write may have been stored are settled by the pod's
  // next version; here the pods go.
  int unsettled = 0;
  for (const auto& pod : env.cluster->pods()) {
    bool reserved = false;
    {
      const auto snapshot = scheduler.ledger().read();
      const auto* charge = snapshot->pod(pod->uid);
      reserved = charge != nullptr && charge->reservation;
    }
    if (reserved) {
      EXPECT_TRUE(faults) << pod->name;
      env.cluster->delete_pod("ns", pod->name);
      ++unsettled;
    }
  }
  // The ledger agrees with what the remaining pods carry.
  std::map<std::string, Totals> totals;
  for (const auto& pod : env.cluster->pods()) {
    const auto allocated = pod->annotation("hami.io/vgpu-devices-allocated");
    const auto key = pod->uid;
    const auto snapshot = scheduler.ledger().read();
    const auto* charge = snapshot->pod(key);
    if (pod->node_name.empty() && (!faults || !allocated)) {
      // Unbound: nothing reserved, nothing written.
      EXPECT_FALSE(allocated.has_value()) << pod->name;
      EXPECT_EQ(charge, nullptr) << pod->name;
      continue;
    }
    ASSERT_TRUE(allocated.has_value()) << pod->name;
    ASSERT_NE(charge, nullptr) << pod->name;
    EXPECT_FALSE(charge->reservation);
    if (!pod->node_name.empty()) {
      EXPECT_EQ(pod->annotation("hami.io/vgpu-node"), pod->node_name);
    }
    add_allocation(*allocated, totals);
  }
  // Device by device.
  const auto snapshot = scheduler.ledger().read();
  {
    const auto* entry = snapshot->node(kMigNode);
    ASSERT_NE(entry, nullptr);
    const Totals t = totals[kMigGpu];
    EXPECT_EQ(entry->use[0][0].memory_mib, t.memory);
    EXPECT_EQ(entry->use[0][0].cores, t.cores);
    EXPECT_EQ(entry->use[0][0].used, t.slots);
  }
  for (int n = 0; n < kNodes; ++n) {
    const auto* entry = snapshot->node("node-" + std::to_string(n));
    ASSERT_NE(entry, nullptr);
    for (int g = 0; g < kGpusPerNode; ++g) {
      const Totals t = totals["GPU-" + std::to_string(n) + "-" + std::to_string(g)];
      const auto& use = entry->use[0][static_cast<size_t>(g)];
      EXPECT_EQ(use.memory_mib, t.memory);
      EXPECT_EQ(use.cores, t.cores);
      EXPECT_EQ(use.used, t.slots);
    }
  }
  // No node lock is left behind by a failed bind — unless its release was
  // one of the failed writes; such a lock expires (the clock moves on).
  for (const auto& node : env.cluster->nodes()) {
    if (!faults) {
      EXPECT_FALSE(node->annotation("hami.io/mutex.lock").has_value()) << node->name();
    }
  }
  ::testing::Test::RecordProperty("bound", bound.load());
  ::testing::Test::RecordProperty("failed_binds", failed_binds.load());
  ::testing::Test::RecordProperty("unsettled", unsettled);
}

class Invariant : public ::testing::TestWithParam<AllocateAt> {};

TEST_P(Invariant, ConcurrentFilterAndBindNeverOverAllocate) {
  run_rounds(GetParam(), 0);
}

TEST_P(Invariant, FailingWritesNeverLoseAnAllocation) {
  run_rounds(GetParam(), 0.15);
}

INSTANTIATE_TEST_SUITE_P(Modes, Invariant, ::testing::Values(AllocateAt::Bind, AllocateAt::Filter),
                         [](const auto& param_info) {
                           return param_info.param == AllocateAt::Bind ? std::string("BindMode")
                                                                       : std::string("FilterMode");
                         });

}  // namespace
