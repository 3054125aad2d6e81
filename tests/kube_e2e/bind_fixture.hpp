// The scheduler's bind over the Kubernetes backend against the fake API
// server, with the real NVIDIA plugin and the scheduling policies: the
// write path as the API server answers it (refusals, validation, other
// writers), without the host around it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "kube/kube_cluster.hpp"
#include "kube_env.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::e2e {

inline constexpr int64_t kBindNow = 1'750'000'000;  // 2025-06-15T15:06:40Z

struct BindFixture : ::testing::Test {
  BindFixture() {
    fake.apply(namespace_object("ml"));
    host::LoaderOptions loader{HAMI_PLUGIN_DIR, true};
    registry = host::PluginRegistry::load(
        loader,
        {{"nvidia", "nvidia.so", HAMI_KIND_DEVICE, "{}"},
         {"hami-policies", "hami-policies.so", HAMI_KIND_SCHEDULING, "{}"}},
        services);
  }
  ~BindFixture() override {
    scheduler.reset();
    if (cluster)
      cluster->stop();
  }

  // The cache over the objects applied so far, and the scheduler on it.
  // The client retries a 429 or 5xx carrying Retry-After once, without
  // waiting.
  void start() {
    kube::ApiConfig config;
    config.server = fake.url();
    config.qps = 0;
    config.max_retries = 2;
    config.request_timeout = std::chrono::seconds(5);
    auto client = std::make_shared<kube::ApiClient>(std::move(config), nullptr,
                                                    [](std::chrono::milliseconds) {});
    kube::KubeClusterOptions options;
    options.backoff_initial = std::chrono::milliseconds(10);
    options.backoff_max = std::chrono::milliseconds(100);
    cluster = std::make_unique<kube::KubernetesClusterState>(std::move(client), options);
    cluster->start();
    ASSERT_TRUE(cluster->wait_synced(10s)) << cluster->sync_status();
    scheduling::SchedulerOptions scheduler_options;
    scheduler_options.allocate_at = allocate_at;
    scheduler_options.clock = [this] { return now.load(); };
    scheduler_options.filter_workers = 0;
    scheduler = std::make_unique<scheduling::Scheduler>(*cluster, registry.devices(),
                                                        registry.scheduling(), scheduler_options);
  }

  // The uid the server gave the pod.
  std::string uid_of(const std::string& pod) const {
    return stored(fake, "Pod", "ml", pod)["metadata"]["uid"].get<std::string>();
  }
  // kube-scheduler's bind of pod ml/<pod> to `node`: "" or the error.
  std::string bind(const std::string& pod, const std::string& node) {
    return scheduler->bind("ml", pod, uid_of(pod), node);
  }
  std::string lock(const std::string& node) const {
    return annotation(stored(fake, "Node", "", node), "hami.io/mutex.lock");
  }
  // Whether the ledger charges (or reserves for) the pod of `uid`.
  bool charged(const std::string& uid) const {
    return scheduler->ledger().read()->pod(uid) != nullptr;
  }
  // Another writer: the stored pod, changed by `change`, stored again.
  template <typename F>
  void rewrite_pod(const std::string& pod, F change) {
    json object = stored(fake, "Pod", "ml", pod);
    object["metadata"].erase("resourceVersion");
    change(object);
    fake.apply(object.dump());
  }

  hami::testing::FakeApiServer fake;
  scheduling::AllocateAt allocate_at = scheduling::AllocateAt::Bind;
  std::atomic<int64_t> now{kBindNow};
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [this] { return now.load(); }};
  host::PluginRegistry registry;
  std::unique_ptr<kube::KubernetesClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;
};

}  // namespace hami::e2e
