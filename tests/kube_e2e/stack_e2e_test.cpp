// Extender stacks (cluster cache, leader, scheduler) against the fake API
// server: node lock contention between two hosts sharing the server, and
// the fault run — 200 pods filtered and bound while the server drops
// watches, expires resourceVersions and answers 409s and 500s; afterwards no
// GPU is over-allocated and every pod is bound or has a clear error.
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "extender/extender_stack.hpp"
#include "k8s/pod.hpp"
#include "kube_env.hpp"

namespace hami::e2e {
namespace {

using hami::testing::FakeApiServer;

struct Plugins {
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [] { return static_cast<int64_t>(std::time(nullptr)); }};
  host::PluginRegistry registry = host::PluginRegistry::load(
      {HAMI_PLUGIN_DIR, true},
      {{"nvidia", "nvidia.so", HAMI_KIND_DEVICE, "{}"},
       {"amd", "amd.so", HAMI_KIND_DEVICE, "{}"},
       {"hami-policies", "hami-policies.so", HAMI_KIND_SCHEDULING, "{}"}},
      services);
};

struct StackE2E : ::testing::Test {
  std::unique_ptr<extender::ExtenderStack> make_stack(
      const std::string& identity, config::AllocateAt allocate_at = config::AllocateAt::bind) {
    extender::ExtenderStackOptions options;
    options.identity = identity;
    auto config = host_config(kubeconfig);
    config.scheduler.allocate_at = allocate_at;
    auto stack = extender::make_extender_stack(config, plugins.registry, logger, options);
    EXPECT_TRUE(stack->kube->wait_synced(10s)) << stack->sync_status();
    // Leader (election off) once a registration pass of its term is done.
    EXPECT_TRUE(eventually([&] { return stack->gate().empty(); })) << stack->gate();
    return stack;
  }

  void fault_run(config::AllocateAt allocate_at);

  // Creates the pod on the API server and waits until `stacks` see it.
  json create_pod(const json& pod, std::initializer_list<extender::ExtenderStack*> stacks) {
    fake.apply(pod.dump());
    const std::string ns = pod["metadata"]["namespace"];
    const std::string name = pod["metadata"]["name"];
    for (auto* s : stacks) {
      EXPECT_TRUE(eventually([&] { return s->cluster->pod(ns, name) != nullptr; }, 5s))
          << ns << "/" << name;
    }
    return stored(fake, "Pod", ns, name);
  }

  static k8s::PodModel model(const json& pod) {
    rapidjson::Document doc;
    const std::string text = pod.dump();
    doc.Parse(text.c_str());
    return k8s::PodModel(doc);
  }

  // What the node-side device plugin does after Allocate: drop the lock —
  // only this pod's, with the resourceVersion precondition (HAMi §6.2),
  // retrying through the injected faults.
  void device_plugin_releases_lock(const std::string& node, const std::string& pod) {
    for (int attempt = 0; attempt < 50; ++attempt) {
      const json n = stored(fake, "Node", "", node);
      const std::string lock = annotation(n, "hami.io/mutex.lock");
      const std::string owner = ",ml," + pod;
      if (lock.size() < owner.size() ||
          lock.compare(lock.size() - owner.size(), owner.size(), owner) != 0)
        return;
      const json patch = {{"metadata",
                           {{"resourceVersion", n["metadata"]["resourceVersion"]},
                            {"annotations", {{"hami.io/mutex.lock", nullptr}}}}}};
      try {
        device_plugin_client->patch("/api/v1/nodes/" + node, kube::PatchType::merge, patch.dump());
        return;
      } catch (const kube::ApiError&) {
        std::this_thread::sleep_for(2ms);
      }
    }
    ADD_FAILURE() << "could not release the lock of " << pod << " on " << node;
  }

  FakeApiServer fake;
  TempFolder dir;
  std::filesystem::path kubeconfig = [this] {
    fake.apply(namespace_object("ml"));
    return write_kubeconfig(dir.path(), fake.url());
  }();
  std::ostringstream log_sink;
  log::Logger logger{log::Level::error, log::Format::text, &log_sink};
  Plugins plugins;
  std::shared_ptr<kube::ApiClient> device_plugin_client = [this] {
    kube::ApiConfig c;
    c.server = fake.url();
    c.qps = 0;
    c.max_retries = 1;
    return std::make_shared<kube::ApiClient>(c);
  }();
};

TEST_F(StackE2E, TwoHostsContendForTheNodeLock) {
  fake.apply(gpu_node("gpu-a", 2));
  auto a = make_stack("host-a");
  auto b = make_stack("host-b");
  const json p1 = create_pod(gpu_pod("ml", "p1", "uid-1", 1000, 0), {a.get(), b.get()});
  const json p2 = create_pod(gpu_pod("ml", "p2", "uid-2", 1000, 0), {a.get(), b.get()});

  // Both hosts bind at the same moment: the resourceVersion-guarded write
  // lets exactly one of them take the lock.
  std::string error_a;
  std::string error_b;
  std::thread ta([&] { error_a = a->scheduler->bind("ml", "p1", "uid-1", "gpu-a"); });
  std::thread tb([&] { error_b = b->scheduler->bind("ml", "p2", "uid-2", "gpu-a"); });
  ta.join();
  tb.join();
  const std::string contention = "node gpu-a has been locked within 5m0s: node lock contention";
  ASSERT_TRUE((error_a.empty() && error_b == contention) ||
              (error_b.empty() && error_a == contention))
      << "a: " << error_a << "\nb: " << error_b;
  const bool a_won = error_a.empty();
  const std::string winner = a_won ? "p1" : "p2";
  const std::string loser = a_won ? "p2" : "p1";
  const std::string loser_uid = a_won ? "uid-2" : "uid-1";
  auto& losing_host = a_won ? *b : *a;
  const std::string lock = annotation(stored(fake, "Node", "", "gpu-a"), "hami.io/mutex.lock");
  EXPECT_EQ(lock.substr(lock.find(',')), ",ml," + winner);
  EXPECT_EQ(stored(fake, "Pod", "ml", winner)["spec"]["nodeName"], "gpu-a");
  const json lost = stored(fake, "Pod", "ml", loser);
  EXPECT_FALSE(lost["spec"].contains("nodeName"));
  EXPECT_EQ(annotation(lost, "hami.io/vgpu-devices-allocated"), "<none>");

  // The losing host retries after the device plugin released the lock.
  device_plugin_releases_lock("gpu-a", winner);
  ASSERT_TRUE(eventually([&] {
    const auto n = losing_host.cluster->node("gpu-a");
    return n && !n->annotation("hami.io/mutex.lock");
  }));
  EXPECT_EQ(losing_host.scheduler->bind("ml", loser, loser_uid, "gpu-a"), "");
  EXPECT_EQ(stored(fake, "Pod", "ml", loser)["spec"]["nodeName"], "gpu-a");
  const std::string second = annotation(stored(fake, "Node", "", "gpu-a"), "hami.io/mutex.lock");
  EXPECT_EQ(second.substr(second.find(',')), ",ml," + loser);
}

// A StatefulSet's pod holding a whole GPU is deleted and re-created under
// its name while the host is cut off, and the server forgets the history:
// the relist after 410 shows only the new, pending pod. The scheduler's
// ledger lets go of the old uid and the GPU is free for the new pod.
TEST_F(StackE2E, PodReCreatedDuringAnOutageReleasesTheOldUid) {
  fake.apply(gpu_node("gpu-a", 1));
  json old_pod = gpu_pod("ml", "infer-0", "uid-old", 40960, 100);
  old_pod["spec"]["nodeName"] = "gpu-a";
  old_pod["status"]["phase"] = "Running";
  old_pod["metadata"]["annotations"] = {
      {"hami.io/vgpu-node", "gpu-a"},
      {"hami.io/vgpu-devices-allocated", gpu_id("gpu-a", 0) + ",NVIDIA,40960,100:;"}};
  fake.apply(old_pod.dump());
  auto stack = make_stack("host-a");
  ASSERT_TRUE(eventually([&] { return stack->scheduler->ledger().read()->pod("uid-old"); }));
  ASSERT_TRUE(fake.wait_open_watches(4, 5s));

  fake.set_refusing(true);
  fake.drop_watches();
  ASSERT_TRUE(fake.remove("Pod", "ml", "infer-0"));
  const json new_pod = gpu_pod("ml", "infer-0", "uid-new", 40960, 100);
  fake.apply(new_pod.dump());
  fake.compact();
  fake.apply(namespace_object("after-compaction"));
  fake.set_refusing(false);

  ASSERT_TRUE(eventually([&] {
    const auto pod = stack->cluster->pod("ml", "infer-0");
    return pod && pod->uid == "uid-new";
  }));
  EXPECT_TRUE(eventually([&] { return !stack->scheduler->ledger().read()->pod("uid-old"); }))
      << "the old uid is still charged";
  const auto snapshot = stack->scheduler->ledger().read();
  EXPECT_EQ(snapshot->pod_count(), 0u);
  const auto& use = snapshot->node("gpu-a")->use[0][0];
  EXPECT_EQ(use.used, 0);
  EXPECT_EQ(use.memory_mib, 0);
  EXPECT_EQ(use.cores, 0);
  const std::vector<std::string> names = {"gpu-a"};
  const auto out = stack->scheduler->filter(model(stored(fake, "Pod", "ml", "infer-0")), names);
  EXPECT_EQ(out.error, "");
  EXPECT_EQ(out.fit, (std::vector<size_t>{0}));
}

TEST_F(StackE2E, FollowerAnswersNotTheLeader) {
  fake.apply(gpu_node("gpu-a", 1));
  fake.apply(
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"kube-scheduler","namespace":"kube-system"},"spec":{"holderIdentity":"node-b_1234","leaseDurationSeconds":15,"renewTime":"2026-07-20T09:41:00.000000Z"}})");
  auto config = host_config(kubeconfig);
  config.cluster.leader_election.mode = config::LeaderMode::follow;
  extender::ExtenderStackOptions options;
  options.identity = "node-a";
  auto stack = extender::make_extender_stack(config, plugins.registry, logger, options);
  ASSERT_TRUE(stack->kube->wait_synced(10s));
  ASSERT_TRUE(eventually([&] { return stack->leader->holder() == "node-b_1234"; }));
  create_pod(gpu_pod("ml", "p", "uid-p", 1000, 0), {stack.get()});
  const std::vector<std::string> names = {"gpu-a"};
  EXPECT_EQ(stack->scheduler->filter(model(gpu_pod("ml", "p", "uid-p", 1000, 0)), names).error,
            "not the leader: lease kube-system/kube-scheduler is held by node-b_1234");
  EXPECT_EQ(stack->scheduler->bind("ml", "p", "uid-p", "gpu-a"),
            "not the leader: lease kube-system/kube-scheduler is held by node-b_1234");
  // A follower never writes the handshake.
  EXPECT_EQ(annotation(stored(fake, "Node", "", "gpu-a"), "hami.io/node-handshake"), "<none>");

  // kube-scheduler on this host takes the lease: we lead and register.
  fake.apply(
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"kube-scheduler","namespace":"kube-system"},"spec":{"holderIdentity":"node-a_99","leaseDurationSeconds":15,"renewTime":"2026-07-20T09:41:30.000000Z"}})");
  ASSERT_TRUE(eventually([&] { return stack->leader->is_leader(); }));
  ASSERT_TRUE(eventually([&] {
    return annotation(stored(fake, "Node", "", "gpu-a"), "hami.io/node-handshake") != "<none>";
  }));
  ASSERT_TRUE(eventually([&] { return stack->gate().empty(); })) << stack->gate();
  EXPECT_EQ(stack->scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
}

std::string kube_scheduler_lease(std::string_view holder, std::string_view renew) {
  return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"kube-scheduler","namespace":"kube-system"},"spec":{"holderIdentity":")" +
         std::string(holder) + R"(","leaseDurationSeconds":15,"renewTime":")" + std::string(renew) +
         R"("}})";
}

std::string scheduler_pod(std::string_view name) {
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", name},
                {"namespace", "hami-system"},
                {"labels", {{"app.kubernetes.io/component", "hami-scheduler"}}}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}}
      .dump();
}

std::string role_of(const FakeApiServer& fake, std::string_view pod) {
  const json p = stored(fake, "Pod", "hami-system", pod);
  const auto& labels = p["metadata"]["labels"];
  return labels.contains("hami.io/scheduler-role")
             ? labels["hami.io/scheduler-role"].get<std::string>()
             : "<none>";
}

size_t pod_writes(const FakeApiServer& fake) {
  size_t n = 0;
  for (const auto& r : fake.requests()) {
    if (r.method == "PATCH" && r.path.rfind("/api/v1/namespaces/hami-system/pods", 0) == 0)
      ++n;
  }
  return n;
}

struct RoleLabelsE2E : StackE2E {
  std::unique_ptr<extender::ExtenderStack> follow_stack(const std::string& pod,
                                                        std::chrono::milliseconds period = 50ms,
                                                        std::function<void()> pass_done_hook = {}) {
    auto config = host_config(kubeconfig);
    config.cluster.leader_election.mode = config::LeaderMode::follow;
    extender::ExtenderStackOptions options;
    options.identity = pod;
    options.pod_name = pod;
    options.pod_namespace = "hami-system";
    options.health_period = period;
    options.pass_done_hook = std::move(pass_done_hook);
    auto stack = extender::make_extender_stack(config, plugins.registry, logger, options);
    EXPECT_TRUE(stack->kube->wait_synced(10s)) << stack->sync_status();
    return stack;
  }
};

TEST_F(RoleLabelsE2E, ALeaderChangeFlipsTheLabels) {
  fake.apply(namespace_object("hami-system"));
  fake.apply(gpu_node("gpu-a", 1));
  fake.apply(scheduler_pod("sched-a"));
  fake.apply(scheduler_pod("sched-b"));
  fake.apply(kube_scheduler_lease("sched-a_1", "2026-07-20T09:41:00.000000Z"));
  auto a = follow_stack("sched-a");
  auto b = follow_stack("sched-b");
  ASSERT_TRUE(eventually([&] {
    return role_of(fake, "sched-a") == "leader" && role_of(fake, "sched-b") == "follower";
  })) << role_of(fake, "sched-a")
      << " " << role_of(fake, "sched-b");

  // kube-scheduler on B's host takes the lease: B labels itself leader.
  fake.apply(kube_scheduler_lease("sched-b_2", "2026-07-20T09:41:30.000000Z"));
  ASSERT_TRUE(eventually([&] {
    return role_of(fake, "sched-a") == "follower" && role_of(fake, "sched-b") == "leader";
  })) << role_of(fake, "sched-a")
      << " " << role_of(fake, "sched-b");

  // Right values are not written again: passes go on, writes do not. A
  // goes first, so no pass it began as the leader is still running; such a
  // pass may have written its stale labels just before, and B's next pass
  // puts them right: counting starts once the labels are right again and
  // two more of B's passes have run (one may have listed the stale labels).
  a.reset();
  ASSERT_TRUE(eventually([&] {
    return role_of(fake, "sched-a") == "follower" && role_of(fake, "sched-b") == "leader";
  })) << role_of(fake, "sched-a")
      << " " << role_of(fake, "sched-b");
  const unsigned settled = b->health->passes();
  ASSERT_TRUE(eventually([&] { return b->health->passes() >= settled + 2; }));
  ASSERT_EQ(role_of(fake, "sched-a"), "follower");
  ASSERT_EQ(role_of(fake, "sched-b"), "leader");
  fake.clear_requests();
  const unsigned passes = b->health->passes();
  ASSERT_TRUE(eventually([&] { return b->health->passes() >= passes + 3; }));
  EXPECT_EQ(pod_writes(fake), 0u);
}

TEST_F(RoleLabelsE2E, AFollowerWritesNoLabel) {
  fake.apply(namespace_object("hami-system"));
  fake.apply(gpu_node("gpu-a", 1));
  fake.apply(scheduler_pod("sched-a"));
  fake.apply(scheduler_pod("sched-b"));
  fake.apply(kube_scheduler_lease("elsewhere_1", "2026-07-20T09:41:00.000000Z"));
  auto b = follow_stack("sched-b");
  ASSERT_TRUE(eventually([&] { return b->leader->holder() == "elsewhere_1"; }));
  fake.clear_requests();
  // Many loop periods go by (50 ms each); none may write as a follower.
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(pod_writes(fake), 0u);
  EXPECT_EQ(role_of(fake, "sched-a"), "<none>");
  EXPECT_EQ(role_of(fake, "sched-b"), "<none>");
  EXPECT_EQ(b->health->passes(), 0u);
}

TEST_F(RoleLabelsE2E, WithoutLeaderElectionTheInstanceLabelsItself) {
  fake.apply(namespace_object("hami-system"));
  fake.apply(scheduler_pod("sched-a"));
  auto config = host_config(kubeconfig);
  extender::ExtenderStackOptions options;
  options.pod_name = "sched-a";
  options.pod_namespace = "hami-system";
  auto stack = extender::make_extender_stack(config, plugins.registry, logger, options);
  ASSERT_TRUE(eventually([&] { return role_of(fake, "sched-a") == "leader"; }))
      << role_of(fake, "sched-a");
}

// Holds registration passes at their end while armed: the n-th pass that
// arrives after arm() waits until release(n) (each wait bounded), so a test
// decides when a pass completes.
class PassGate {
 public:
  void arm() {
    std::lock_guard guard(mu_);
    armed_ = true;
  }
  // The hook.
  void pass_done() {
    std::unique_lock lock(mu_);
    if (!armed_)
      return;
    const unsigned index = ++entered_;
    cv_.notify_all();
    cv_.wait_for(lock, 20s, [&] { return released_ >= index; });
  }
  bool wait_entered(unsigned count) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 10s, [&] { return entered_ >= count; });
  }
  void release(unsigned count) {
    {
      std::lock_guard guard(mu_);
      released_ = count;
    }
    cv_.notify_all();
  }
  void release_all() { release(1000); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;
  unsigned entered_ = 0;
  unsigned released_ = 0;
};

// HAMi's failover race A -> B -> A: A's pass that began while it first led
// completes only after A leads again. It must not make A's new term ready;
// /filter waits for a pass that began in the new term.
TEST_F(RoleLabelsE2E, ALatePassOfAnEarlierTermDoesNotMakeTheNewTermReady) {
  fake.apply(namespace_object("hami-system"));
  fake.apply(gpu_node("gpu-a", 1));
  fake.apply(scheduler_pod("sched-a"));
  fake.apply(scheduler_pod("sched-b"));
  fake.apply(kube_scheduler_lease("sched-a_1", "2026-07-20T09:41:00.000000Z"));
  PassGate gate;
  // Passes of A run only when woken (the period is far beyond the test).
  auto a = follow_stack("sched-a", 10min, [&gate] { gate.pass_done(); });
  auto b = follow_stack("sched-b", 10min);
  ASSERT_TRUE(eventually([&] { return a->gate().empty(); })) << a->gate();
  EXPECT_EQ(a->term.current(), 1u);
  create_pod(gpu_pod("ml", "p", "uid-p", 1000, 0), {a.get()});
  const auto p = model(gpu_pod("ml", "p", "uid-p", 1000, 0));
  const std::vector<std::string> names = {"gpu-a"};
  ASSERT_EQ(a->scheduler->filter(p, names).error, "");

  // A pass of term 1 starts and is held at its end.
  gate.arm();
  a->health->wake();
  ASSERT_TRUE(gate.wait_entered(1));
  const unsigned passes = a->health->passes();

  // B leads, then A again: term 3 (2 was the term without leadership).
  fake.apply(kube_scheduler_lease("sched-b_2", "2026-07-20T09:41:30.000000Z"));
  ASSERT_TRUE(eventually([&] { return !a->leader->is_leader() && b->leader->is_leader(); }));
  ASSERT_TRUE(eventually([&] { return b->gate().empty(); })) << b->gate();
  fake.apply(kube_scheduler_lease("sched-a_3", "2026-07-20T09:42:00.000000Z"));
  ASSERT_TRUE(eventually([&] { return a->leader->is_leader() && a->term.current() == 3u; }))
      << a->term.current();

  // The late pass of term 1 completes; the wake of term 3 starts the next
  // pass, which is held in its turn.
  gate.release(1);
  ASSERT_TRUE(gate.wait_entered(2));
  EXPECT_EQ(a->health->passes(), passes + 1);
  EXPECT_FALSE(a->term.synced());
  EXPECT_FALSE(a->view_synced());
  EXPECT_EQ(a->gate(), "not ready: registration pass of leadership term 3 not completed yet");
  EXPECT_EQ(a->scheduler->filter(p, names).error,
            "not ready: registration pass of leadership term 3 not completed yet");
  EXPECT_EQ(a->scheduler->bind("ml", "p", "uid-p", "gpu-a"),
            "not ready: registration pass of leadership term 3 not completed yet");

  // The pass of term 3 completes: A schedules again.
  gate.release_all();
  ASSERT_TRUE(eventually([&] { return a->gate().empty(); })) << a->gate();
  EXPECT_TRUE(a->view_synced());
  EXPECT_EQ(a->scheduler->filter(p, names).error, "");
}

// Per device: memory, cores and slots handed out by the pods' allocation
// annotations on the API server.
struct DeviceUse {
  int64_t memory = 0;
  int64_t cores = 0;
  int64_t slots = 0;
};

std::map<std::string, DeviceUse> usage_from_annotations(const FakeApiServer& fake) {
  std::map<std::string, DeviceUse> use;
  for (const std::string& text : fake.objects("Pod")) {
    const json pod = json::parse(text);
    const std::string allocated = annotation(pod, "hami.io/vgpu-devices-allocated");
    if (allocated == "<none>")
      continue;
    std::stringstream containers(allocated);
    std::string container;
    while (std::getline(containers, container, ';')) {
      std::stringstream devices(container);
      std::string device;
      while (std::getline(devices, device, ':')) {
        if (device.empty())
          continue;
        std::stringstream fields(device);
        std::string id, type, memory, cores;
        std::getline(fields, id, ',');
        std::getline(fields, type, ',');
        std::getline(fields, memory, ',');
        std::getline(fields, cores, ',');
        auto& u = use[id];
        u.memory += std::stoll(memory);
        u.cores += std::stoll(cores);
        u.slots += 1;
      }
    }
  }
  return use;
}

// The fault run, allocating at bind (every fitting node returned) or at
// filter (filter picks one node and writes the allocation).
void StackE2E::fault_run(config::AllocateAt allocate_at) {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<std::string> nodes = {"gpu-0", "gpu-1", "gpu-2", "gpu-3"};
  for (const auto& n : nodes)
    fake.apply(gpu_node(n, 2));
  auto stack = make_stack("host-a", allocate_at);

  // One fault per pod handled, in rotation: dropped watch streams, an
  // expired resourceVersion (410 → relist), a watch ERROR event, a 409 on a
  // node write, 500s on pod writes and on the binding, and 500s after the
  // write was stored on a pod write, the binding and a node write. Paced by
  // progress so unconsumed write faults do not pile up.
  constexpr int kPods = 200;
  std::atomic<int> handled{0};
  std::atomic<bool> done{false};
  std::atomic<int> faults{0};
  std::thread injector([&] {
    int injected_for = -1;
    while (!done.load()) {
      const int now = handled.load();
      if (now == injected_for) {
        std::this_thread::sleep_for(1ms);
        continue;
      }
      injected_for = now;
      switch (faults.load() % 9) {
        case 0:
          fake.drop_watches();
          break;
        case 1:
          fake.fail_next("PATCH", "/api/v1/nodes/", 409);
          break;
        case 2:
          fake.compact();  // the next re-watch gets 410 Expired → relist
          fake.drop_watches();
          break;
        case 3:
          fake.fail_next("POST", "/api/v1/namespaces/ml/pods/", 500);
          break;
        case 4:
          fake.send_watch_error(500, "InternalError", "etcd leader changed");
          break;
        case 5:
          fake.fail_next("PATCH", "/api/v1/namespaces/ml/pods/", 500);
          break;
        case 6:
          // Stored, then answered 500: the write may or may not have landed.
          fake.fail_next_after_applying("PATCH", "/api/v1/namespaces/ml/pods/", 500);
          break;
        case 7:
          fake.fail_next_after_applying("POST", "/api/v1/namespaces/ml/pods/", 500);
          break;
        case 8:
          fake.fail_next_after_applying("PATCH", "/api/v1/nodes/", 500);
          break;
      }
      ++faults;
    }
  });

  std::mutex mu;
  std::map<std::string, std::string> outcome;  // pod → "" (bound) or the last error text
  const auto schedule_once = [&](int i, const json& pod) {
    const std::string name = pod["metadata"]["name"];
    const std::string uid = pod["metadata"]["uid"];
    if (!eventually([&] { return stack->cluster->pod("ml", name) != nullptr; }, 10s))
      return std::string("pod never reached the cache");
    const auto out = stack->scheduler->filter(model(pod), nodes);
    if (!out.error.empty())
      return "filter: " + out.error;
    if (out.fit.empty()) {
      std::string result = "filter: no node fits";
      for (const auto& [node, reason] : out.failed)
        result += "; " + node + ": " + reason;
      return result;
    }
    // kube-scheduler's own scoring spreads the choice among the fits.
    const std::string node = nodes[out.fit[static_cast<size_t>(i) % out.fit.size()]];
    std::string result = stack->scheduler->bind("ml", name, uid, node);
    if (result.empty())
      device_plugin_releases_lock(node, name);
    return result;
  };
  const auto schedule = [&](int first, int step) {
    for (int i = first; i < kPods; i += step) {
      const std::string name = "p" + std::to_string(i);
      const std::string uid = "uid-" + std::to_string(i);
      // Mixed sizes: 8000 MiB / 20 % and 12000 MiB / 35 %.
      const json pod =
          i % 3 == 0 ? gpu_pod("ml", name, uid, 12000, 35) : gpu_pod("ml", name, uid, 8000, 20);
      fake.apply(pod.dump());
      // kube-scheduler retries a pod whose filter or bind failed.
      std::string result;
      for (int attempt = 0; attempt < 3; ++attempt) {
        result = schedule_once(i, pod);
        if (result.empty() || result.rfind("filter: no node fits", 0) == 0)
          break;
        std::this_thread::sleep_for(20ms);
      }
      {
        std::lock_guard guard(mu);
        outcome[name] = result;
      }
      ++handled;
    }
  };
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w)
    workers.emplace_back(schedule, w, 4);
  for (auto& w : workers)
    w.join();
  done = true;
  injector.join();

  // Every pod: bound (spec.nodeName on the server) or a non-empty error.
  ASSERT_EQ(outcome.size(), static_cast<size_t>(kPods));
  int bound = 0;
  for (const auto& [name, error] : outcome) {
    const json pod = stored(fake, "Pod", "ml", name);
    if (error.empty()) {
      ++bound;
      EXPECT_TRUE(pod["spec"].contains("nodeName")) << name;
      EXPECT_EQ(annotation(pod, "hami.io/vgpu-node"), pod["spec"].value("nodeName", "")) << name;
      EXPECT_NE(annotation(pod, "hami.io/vgpu-devices-allocated"), "<none>") << name;
    } else {
      EXPECT_GT(error.size(), 10u) << name << ": " << error;
    }
  }
  // 4 nodes × 2 GPUs; each GPU takes at most 5 pods of 8000 MiB / 20 %
  // and at least 3 of the mix: far fewer than 200 fit.
  std::map<std::string, int> errors;  // distinct texts, for the failure message
  for (const auto& [name, error] : outcome) {
    if (!error.empty())
      ++errors[error.substr(0, 160)];
  }
  std::string summary;
  for (const auto& [text, count] : errors)
    summary += std::to_string(count) + " x " + text + "\n";
  EXPECT_GE(bound, 16) << summary;
  EXPECT_LE(bound, 40) << summary;

  // No device is ever over-allocated, counting every pod that carries an
  // allocation (bound or not).
  const auto use = usage_from_annotations(fake);
  // For a failure message: the pods whose allocation names `device`.
  const auto holders = [&](const std::string& device) {
    std::string out;
    for (const std::string& text : fake.objects("Pod")) {
      const json pod = json::parse(text);
      const std::string allocated = annotation(pod, "hami.io/vgpu-devices-allocated");
      if (allocated.find(device + ",") == std::string::npos)
        continue;
      const std::string name = pod["metadata"]["name"];
      out += "\n  " + name + " " + allocated + " bound to '" + pod["spec"].value("nodeName", "") +
             "' outcome '" + outcome[name] + "'";
    }
    return out;
  };
  EXPECT_GE(use.size(), 8u);  // every GPU got pods
  for (const auto& [device, u] : use) {
    EXPECT_LE(u.memory, 40960) << device << holders(device);
    EXPECT_LE(u.cores, 100) << device << holders(device);
    EXPECT_LE(u.slots, 10) << device << holders(device);
  }
  EXPECT_GT(faults.load(), 5);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 60s);
}

TEST_F(StackE2E, FaultRunNeverOverAllocates) {
  fault_run(config::AllocateAt::bind);
}

TEST_F(StackE2E, FaultRunNeverOverAllocatesAllocatingAtFilter) {
  fault_run(config::AllocateAt::filter);
}

}  // namespace
}  // namespace hami::e2e
