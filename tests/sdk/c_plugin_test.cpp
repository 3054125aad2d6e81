// Plugins written in plain C99 (no C++ anywhere) load through the host's
// loader and work through its handles: every device call, an admission
// review using the host's services, and scheduling policies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "fixture_paths.h"
#include "load_error.hpp"
#include "plugin_test_support.hpp"
#include "plugins/plugin_loader.hpp"

namespace hami::test {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

hami_str str(const char* s) {
  return hami_str{s, std::char_traits<char>::length(s)};
}

hami_kv kv(const char* k, const char* v) {
  return hami_kv{str(k), str(v)};
}

hami_container_view container(const char* name, const std::vector<hami_kv>& limits) {
  hami_container_view c{};
  c.struct_size = sizeof c;
  c.name = str(name);
  c.limits = limits.data();
  c.limits_len = limits.size();
  return c;
}

class CPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.add(HAMI_FIXTURE_C_DEVICE);
    dir_.add(HAMI_FIXTURE_C_ADMISSION);
    dir_.add(HAMI_FIXTURE_C_SCHED_BINPACK);
  }
  host::DevicePluginHandle device(std::string config = "{}") {
    return host::load_device_plugin(
        dir_.options(), spec("cdev", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, std::move(config)),
        recorder_.services());
  }

  TempPluginDir dir_;
  RecordingServices recorder_;
};

TEST_F(CPlugin, DeviceDescribesItself) {
  const auto handle = device();
  EXPECT_EQ(handle.info().name, "c_device");
  EXPECT_EQ(handle.info().version, "1.0.0");
  EXPECT_EQ(handle.info().flags, 0u);
  const auto& d = handle.description();
  EXPECT_EQ(d.vendor, "CDEV");
  EXPECT_EQ(d.count_resource, "example.com/cdev");
  EXPECT_EQ(d.memory_resource, "example.com/cdev-mem");
  EXPECT_EQ(d.cores_resource, "example.com/cdev-cores");
  EXPECT_EQ(d.memory_percent_resource, "");
  EXPECT_EQ(d.register_annotation, "example.com/cdev-register");
  EXPECT_EQ(d.allocated_annotation, "example.com/cdev-allocated");
  EXPECT_EQ(d.memory_factor, 1);
}

TEST_F(CPlugin, DeviceMutatesRequestsAndDenies) {
  const auto handle = device(R"({"defaultMemory": 2048})");
  const std::vector<hami_kv> wants{kv("example.com/cdev", "2")};
  const std::vector<hami_kv> none{kv("cpu", "1")};
  const std::vector<hami_kv> zero{kv("example.com/cdev", "0")};
  const std::vector<hami_kv> junk{kv("example.com/cdev", "1"), kv("example.com/cdev-mem", "lots")};
  const std::array<hami_container_view, 4> containers{
      container("gpu", wants), container("cpu", none), container("zero", zero),
      container("junk", junk)};
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  pod.containers = containers.data();
  pod.containers_len = containers.size();

  const auto m = handle.mutate_container(pod, 0);
  EXPECT_TRUE(m.uses_device);
  EXPECT_THAT(m.limits, ElementsAre(Pair("example.com/cdev-mem", "2048")));
  EXPECT_THAT(m.env, ElementsAre(Pair("CDEV_VISIBLE", "all")));
  EXPECT_EQ(m.runtime_class, "cdev");

  const auto untouched = handle.mutate_container(pod, 1);
  EXPECT_FALSE(untouched.uses_device);
  EXPECT_TRUE(untouched.limits.empty());
  EXPECT_FALSE(untouched.runtime_class.has_value());

  const auto denial = call_error([&] { (void)handle.mutate_container(pod, 2); });
  EXPECT_EQ(denial.status(), HAMI_INVALID_ARGUMENT);
  EXPECT_STREQ(denial.what(), "cdev.mutate_container: example.com/cdev must be at least 1");

  const auto request = handle.container_request(pod, 0);
  EXPECT_EQ(request.request.count, 2);
  EXPECT_TRUE(request.warning.empty());
  EXPECT_EQ(handle.container_request(pod, 1).request.count, 0);
  const auto bad = handle.container_request(pod, 3);
  EXPECT_EQ(bad.request.count, 0);
  EXPECT_EQ(bad.warning, "example.com/cdev-mem: not a number of MiB");
}

TEST_F(CPlugin, DeviceDecodesNodesAndReportsHealth) {
  const auto handle = device();
  const std::array<hami_kv, 2> annotations{
      kv("example.com/cdev-register", "GPU-a,CDEV-40G,40960,100;GPU-b,CDEV-40G,40960,100"),
      kv("example.com/cdev-links", "GPU-a>GPU-b=90;GPU-b>GPU-a=90")};
  hami_node_view node{};
  node.struct_size = sizeof node;
  node.name = str("node-1");
  node.annotations = annotations.data();
  node.annotations_len = annotations.size();

  const auto inventory = handle.decode_node(node);
  ASSERT_EQ(inventory.devices.size(), 2u);
  EXPECT_EQ(inventory.devices[0].id, "GPU-a");
  EXPECT_EQ(inventory.devices[1].id, "GPU-b");
  EXPECT_EQ(inventory.devices[1].index, 1u);
  EXPECT_EQ(inventory.devices[0].type, "CDEV-40G");
  EXPECT_EQ(inventory.devices[0].memory_mib, 40960);
  EXPECT_EQ(inventory.devices[0].cores, 100);
  EXPECT_EQ(inventory.devices[0].flags, HAMI_DEVICE_HEALTHY);
  ASSERT_EQ(inventory.pair_scores.size(), 2u);
  EXPECT_EQ(inventory.pair_scores[0].from, "GPU-a");
  EXPECT_EQ(inventory.pair_scores[0].to, "GPU-b");
  EXPECT_EQ(inventory.pair_scores[0].score, 90);

  const auto cleanup = handle.node_cleanup(node);
  ASSERT_EQ(cleanup.size(), 1u);
  EXPECT_EQ(cleanup[0].key, "example.com/cdev-handshake");
  EXPECT_FALSE(cleanup[0].value.has_value());

  hami_node_view bare{};
  bare.struct_size = sizeof bare;
  const auto missing = call_error([&] { (void)handle.decode_node(bare); });
  EXPECT_EQ(missing.status(), HAMI_NOT_FOUND);
  EXPECT_STREQ(missing.what(),
               "cdev.decode_node: node has no example.com/cdev-register annotation");
  EXPECT_FALSE(handle.node_health(bare, 1).healthy);
  // The scheduler's form: no registration is no inventory, not an error.
  EXPECT_FALSE(handle.decode_node_if_registered(bare).has_value());
  const auto registered = handle.decode_node_if_registered(node);
  ASSERT_TRUE(registered.has_value());
  ASSERT_EQ(registered->devices.size(), 2u);
  EXPECT_EQ(registered->devices[1].id, "GPU-b");
  EXPECT_EQ(registered->pair_scores.size(), 2u);

  const hami_kv broken = kv("example.com/cdev-register", "GPU-a,CDEV,lots,100");
  bare.annotations = &broken;
  bare.annotations_len = 1;
  EXPECT_EQ(call_error([&] { (void)handle.decode_node(bare); }).status(), HAMI_INVALID_ARGUMENT);
  const auto malformed = call_error([&] { (void)handle.decode_node_if_registered(bare); });
  EXPECT_EQ(malformed.status(), HAMI_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(malformed.what()).rfind("cdev.decode_node: ", 0), 0u) << malformed.what();
}

TEST_F(CPlugin, DeviceFitsAndRoundTripsAllocations) {
  const auto handle = device();
  std::array<hami_device, 3> devices{};
  std::array<hami_device_usage, 3> usage{};
  const std::array<const char*, 3> ids{"GPU-a", "GPU-b", "GPU-c"};
  for (size_t i = 0; i < devices.size(); ++i) {
    devices[i].struct_size = sizeof(hami_device);
    devices[i].id = str(ids[i]);
    devices[i].count = 10;
    devices[i].memory_mib = 1000;
    devices[i].cores = 100;
    usage[i].struct_size = sizeof(hami_device_usage);
    usage[i].device = &devices[i];
  }
  usage[0].used_memory_mib = 900;  // GPU-a cannot take 500 MiB more
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  hami_device_request request{sizeof(hami_device_request), 2, 500, 0, 10, 0};
  hami_fit_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod;
  in.request = &request;
  in.devices = usage.data();
  in.devices_len = usage.size();
  std::array<hami_fit_pick, 3> picks{};

  const auto fit = handle.fit(in, picks);
  EXPECT_TRUE(fit.fits);
  ASSERT_EQ(fit.picks_len, 2u);
  EXPECT_EQ(picks[0].device, 1u);
  EXPECT_EQ(picks[1].device, 2u);
  EXPECT_EQ(std::string(picks[0].type.ptr, picks[0].type.len), "CDEV");
  EXPECT_TRUE(fit.reason.empty());

  request.count = 3;
  const auto no_fit = handle.fit(in, picks);
  EXPECT_FALSE(no_fit.fits);
  EXPECT_EQ(no_fit.reason, "1/3 CardInsufficientMemory");

  const std::array<hami_alloc_device, 2> first{
      hami_alloc_device{sizeof(hami_alloc_device), str("GPU-b"), str("CDEV"), 500, 10},
      hami_alloc_device{sizeof(hami_alloc_device), str("GPU-c"), str("CDEV"), 500, 10}};
  const std::array<hami_container_alloc, 3> containers{
      hami_container_alloc{nullptr, 0}, hami_container_alloc{first.data(), first.size()},
      hami_container_alloc{nullptr, 0}};
  const std::string encoded = handle.encode_allocation(containers);
  EXPECT_EQ(encoded, ";GPU-b,CDEV,500,10:GPU-c,CDEV,500,10:;;");

  const auto decoded = handle.decode_allocation(encoded);
  ASSERT_EQ(decoded.size(), 3u);
  EXPECT_TRUE(decoded[0].empty());
  ASSERT_EQ(decoded[1].size(), 2u);
  EXPECT_EQ(decoded[1][1].id, "GPU-c");
  EXPECT_EQ(decoded[1][1].memory_mib, 500);
  EXPECT_EQ(decoded[1][1].cores, 10);
  EXPECT_TRUE(decoded[2].empty());

  const std::array<hami_alloc_device, 1> separator{
      hami_alloc_device{sizeof(hami_alloc_device), str("GPU:x"), str("CDEV"), 1, 1}};
  const std::array<hami_container_alloc, 1> bad{
      hami_container_alloc{separator.data(), separator.size()}};
  EXPECT_EQ(call_error([&] { (void)handle.encode_allocation(bad); }).status(),
            HAMI_INVALID_ARGUMENT);
}

// The admission host a C plugin calls back into during review.
struct AdmissionHost {
  hami_status defaults_status = HAMI_OK;
  uint32_t managed = 1;
  hami_status quota_status = HAMI_OK;
  std::string label;
  int defaults_calls = 0;

  static AdmissionHost& of(void* ctx) { return *static_cast<AdmissionHost*>(ctx); }
  static hami_status defaults(void* ctx, uint32_t* uses, hami_errbuf err) {
    auto& self = of(ctx);
    ++self.defaults_calls;
    *uses = self.managed;
    if (self.defaults_status != HAMI_OK && err.cap > 20) {
      std::snprintf(err.buf, err.cap, "invalid gpumem value");
    }
    return self.defaults_status;
  }
  static hami_status quota(void* ctx, hami_errbuf err) {
    if (of(ctx).quota_status != HAMI_OK && err.cap > 40) {
      std::snprintf(err.buf, err.cap, "exceeding resource quota");
    }
    return of(ctx).quota_status;
  }
  static hami_status namespace_label(void* ctx, hami_str, hami_sink value) {
    const auto& label = of(ctx).label;
    if (label.empty()) {
      return HAMI_NOT_FOUND;
    }
    value.append(value.ctx, label.data(), label.size());
    return HAMI_OK;
  }
  hami_admission_host table() {
    return hami_admission_host{sizeof(hami_admission_host), this, &defaults, &quota,
                               &namespace_label};
  }
};

TEST_F(CPlugin, AdmissionReviewUsesHostServices) {
  const auto handle = host::load_admission_plugin(
      dir_.options(), spec("webhook", HAMI_FIXTURE_C_ADMISSION, HAMI_KIND_ADMISSION),
      recorder_.services());
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  AdmissionHost fake;
  const hami_admission_host table = fake.table();
  const hami_admission_input in{sizeof(hami_admission_input), &pod, str("hami-scheduler"), 0,
                                &table};

  auto decision = handle.review(in);
  EXPECT_EQ(decision.verdict, HAMI_ADMIT_ALLOW);
  EXPECT_EQ(decision.scheduler_name, "hami-scheduler");
  EXPECT_EQ(decision.message, "");
  EXPECT_EQ(fake.defaults_calls, 1);

  fake.quota_status = HAMI_RESOURCE_EXHAUSTED;
  decision = handle.review(in);
  EXPECT_EQ(decision.verdict, HAMI_ADMIT_DENY);
  EXPECT_EQ(decision.code, 403);
  EXPECT_EQ(decision.message, "exceeding resource quota");
  EXPECT_FALSE(decision.scheduler_name.has_value());

  fake.defaults_status = HAMI_INVALID_ARGUMENT;
  decision = handle.review(in);
  EXPECT_EQ(decision.verdict, HAMI_ADMIT_DENY);
  EXPECT_EQ(decision.code, 400);
  EXPECT_EQ(decision.message, "invalid gpumem value");

  fake.defaults_status = HAMI_OK;
  fake.managed = 0;
  decision = handle.review(in);
  EXPECT_EQ(decision.verdict, HAMI_ADMIT_SKIP);
  EXPECT_EQ(decision.message, "no managed device");

  fake.label = "skip";
  decision = handle.review(in);
  EXPECT_EQ(decision.verdict, HAMI_ADMIT_SKIP);
  EXPECT_EQ(decision.message, "namespace opted out");
}

TEST_F(CPlugin, SchedulingScoresAndOrders) {
  const auto handle = host::load_scheduling_plugin(
      dir_.options(), spec("policies", HAMI_FIXTURE_C_SCHED_BINPACK, HAMI_KIND_SCHEDULING),
      recorder_.services());
  EXPECT_THAT(handle.describe().node_policies, ElementsAre("binpack"));
  EXPECT_THAT(handle.describe().device_policies, ElementsAre("binpack", "spread"));
  EXPECT_NE(handle.info().flags & HAMI_FLAG_CONCURRENT_SAFE, 0u);

  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  hami_node_usage node{};
  node.struct_size = sizeof node;
  node.used_memory_mib = 250;
  node.total_memory_mib = 1000;
  EXPECT_DOUBLE_EQ(handle.score_node("binpack", pod, node), 25.0);
  EXPECT_DOUBLE_EQ(handle.score_node("spread", pod, node), 75.0);
  const auto unknown = call_error([&] { (void)handle.score_node("numa", pod, node); });
  EXPECT_EQ(unknown.status(), HAMI_INVALID_ARGUMENT);
  EXPECT_STREQ(unknown.what(), "policies.score_node: c_scheduling: unknown node policy");

  std::array<hami_device, 3> devices{};
  std::array<hami_device_usage, 3> usage{};
  std::array<hami_order_device, 3> order_devices{};
  const std::array<double, 3> scores{10.0, 30.0, 20.0};
  for (size_t i = 0; i < 3; ++i) {
    devices[i].struct_size = sizeof(hami_device);
    usage[i] = hami_device_usage{sizeof(hami_device_usage), &devices[i], 0, 0, 0};
    order_devices[i] = hami_order_device{sizeof(hami_order_device), &usage[i], scores[i]};
  }
  hami_order_input in{sizeof(hami_order_input), str("binpack"), &pod, order_devices.data(),
                      order_devices.size()};
  auto order = handle.order_devices(in);
  EXPECT_THAT(order.order, ElementsAre(1u, 2u, 0u));
  EXPECT_EQ(order.fit_flags, 0u);

  in.policy = str("spread,topology-aware");
  order = handle.order_devices(in);
  EXPECT_THAT(order.order, ElementsAre(0u, 2u, 1u));
  EXPECT_EQ(order.fit_flags, HAMI_FIT_TOPOLOGY_AWARE);
}

}  // namespace
}  // namespace hami::test
