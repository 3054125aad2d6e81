// The host services behind the admission plugin, checked with probe.so (a
// device plugin with predictable rules) and the second admission plugin,
// namespace-label.so: mutation order, parents, runtime class, device
// denials and failures, quota, namespace labels, concurrency.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "admission/admission_service.hpp"
#include "memory_cluster_view.hpp"
#include "patch_check.hpp"
#include "plugin_set.hpp"

namespace hami::admission {
namespace {

using nlohmann::json;
using testing::MemoryClusterView;
using testing::PluginSet;
using testing::reply_patch;
using testing::test_plugins;

std::string create(const json& pod, std::string_view ns = "ml") {
  return json{{"apiVersion", "admission.k8s.io/v1"},
              {"kind", "AdmissionReview"},
              {"request",
               {{"uid", "u-9"},
                {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                {"operation", "CREATE"},
                {"namespace", ns},
                {"object", pod}}}}
      .dump();
}

struct Fixture {
  // `probe` config for probe.so, then optional extra vendors, then the policy.
  Fixture(const json& probe, const std::string& policy = "vgpu",
          const json& policy_config = json::object(), bool with_nvidia = false,
          bool with_cluster = true) {
    plugins.device("probe", probe.dump(), test_plugins());
    if (with_nvidia)
      plugins.device("nvidia", "{}");
    plugins.admission(policy, policy_config.dump());
    service.emplace(plugins.devices(), plugins.policy(), with_cluster ? &cluster : nullptr,
                    AdmissionSettings{});
  }
  json reply(const json& pod, std::string_view ns = "ml") const {
    return json::parse(service->handle("application/json", create(pod, ns)).body);
  }
  json patch(const json& pod) const {
    return reply_patch(service->handle("application/json", create(pod)).body);
  }

  PluginSet plugins;
  MemoryClusterView cluster;
  std::optional<AdmissionService> service;
};

const json kGpuPod = json::parse(R"({"metadata":{"name":"p"},"spec":{
  "schedulerName":"default-scheduler",
  "initContainers":[{"name":"init"}],
  "containers":[{"name":"main","resources":{"limits":{"example.com/gpu":"1"}}},
                {"name":"side","env":[{"name":"A","value":"a"}]}]}})");

TEST(AdmissionHost, MutationsInInitThenAppOrderWithParentsFirst) {
  const Fixture f(
      json{{"env", {{"name", "PROBE"}, {"value", "on"}}}, {"runtimeClass", "probe-rt"}});
  const json patch = f.patch(kGpuPod);
  EXPECT_EQ(patch, json::parse(R"([
    {"op":"add","path":"/spec/initContainers/0/env","value":[]},
    {"op":"add","path":"/spec/initContainers/0/env/0","value":{"name":"PROBE","value":"on"}},
    {"op":"add","path":"/spec/containers/0/resources/limits/example.com~1cores","value":"100"},
    {"op":"add","path":"/spec/containers/0/env","value":[]},
    {"op":"add","path":"/spec/containers/0/env/0","value":{"name":"PROBE","value":"on"}},
    {"op":"add","path":"/spec/runtimeClassName","value":"probe-rt"},
    {"op":"add","path":"/spec/containers/1/env/1","value":{"name":"PROBE","value":"on"}},
    {"op":"replace","path":"/spec/schedulerName","value":"hami-scheduler"}])"));
  const json pod = kGpuPod.patch(patch);
  EXPECT_EQ(pod["spec"]["initContainers"][0]["env"][0]["value"], "on");
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["limits"]["example.com/cores"], "100");
  EXPECT_EQ(pod["spec"]["containers"][1]["env"].size(), 2U);
  EXPECT_EQ(pod["spec"]["runtimeClassName"], "probe-rt");
  EXPECT_EQ(pod["spec"]["schedulerName"], "hami-scheduler");
  EXPECT_TRUE(f.patch(pod).empty());
}

TEST(AdmissionHost, RequestsAndPodAnnotationsOfAbi11Plugins) {
  // set_request and set_pod_annotation (ABI 1.1): the parents are created
  // first, an existing requests map is kept, a second container's
  // annotation replaces the first's value.
  const Fixture f(
      json{{"requestCopy", "example.com/gpu"}, {"podAnnotation", "example.com/probed"}});
  const json pod = json::parse(R"({"metadata":{"name":"p"},"spec":{"containers":[
    {"name":"a","resources":{"limits":{"example.com/gpu":"1"}}},
    {"name":"b","resources":{"limits":{"example.com/gpu":"2"},"requests":{"cpu":"1"}}}]}})");
  const json patch = f.patch(pod);
  EXPECT_EQ(patch, json::parse(R"([
    {"op":"add","path":"/spec/containers/0/resources/limits/example.com~1cores","value":"100"},
    {"op":"add","path":"/spec/containers/0/resources/requests","value":{}},
    {"op":"add","path":"/spec/containers/0/resources/requests/example.com~1gpu","value":"1"},
    {"op":"add","path":"/metadata/annotations","value":{}},
    {"op":"add","path":"/metadata/annotations/example.com~1probed","value":"a"},
    {"op":"add","path":"/spec/containers/1/resources/limits/example.com~1cores","value":"100"},
    {"op":"add","path":"/spec/containers/1/resources/requests/example.com~1gpu","value":"2"},
    {"op":"replace","path":"/metadata/annotations/example.com~1probed","value":"b"},
    {"op":"add","path":"/spec/schedulerName","value":"hami-scheduler"}])"));
  const json patched = pod.patch(patch);
  EXPECT_EQ(patched["spec"]["containers"][1]["resources"]["requests"],
            json({{"cpu", "1"}, {"example.com/gpu", "2"}}));
  EXPECT_EQ(patched["metadata"]["annotations"], json({{"example.com/probed", "b"}}));
  // Applied again: the annotation goes back to the first container's value
  // and then to the second's, the requests stay.
  EXPECT_EQ(f.patch(patched), json::parse(R"([
    {"op":"replace","path":"/metadata/annotations/example.com~1probed","value":"a"},
    {"op":"replace","path":"/metadata/annotations/example.com~1probed","value":"b"}])"));
}

TEST(AdmissionHost, LaterDevicePluginsSeeEarlierDefaults) {
  // probe (listed first) treats nvidia.com/gpu as its count and defaults
  // nvidia.com/gpumem; nvidia then sees a memory limit and keeps the
  // container shareable. Had it seen the original pod, it would have added
  // nvidia.com/gpucores = 100 (the exclusive default).
  const Fixture f({{"resource", "nvidia.com/gpu"}, {"cores", "nvidia.com/gpumem"}}, "vgpu",
                  json::object(), /*with_nvidia=*/true);
  const json pod = json::parse(R"({"spec":{"containers":[{"name":"c","resources":{"limits":
    {"nvidia.com/gpu":"1"}}}]}})");
  const json patch = f.patch(pod);
  EXPECT_EQ(patch, json::parse(R"([
    {"op":"add","path":"/spec/containers/0/resources/limits/nvidia.com~1gpumem","value":"100"},
    {"op":"add","path":"/spec/schedulerName","value":"hami-scheduler"}])"));
  const json patched = pod.patch(patch);
  EXPECT_EQ(patched["spec"]["containers"][0]["resources"]["limits"],
            json({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "100"}}));
  EXPECT_TRUE(f.patch(patched).empty());
}

TEST(AdmissionHost, DeviceDenialAndDeviceFailure) {
  const Fixture reject(json{{"rejectContainer", "main"}});
  const json denied = reject.reply(kGpuPod);
  EXPECT_EQ(denied["response"], json::parse(R"({"uid":"u-9","allowed":false,
    "status":{"metadata":{},"message":"container main rejected by probe","code":400}})"));

  const Fixture crash(json{{"crashContainer", "side"}});
  const json failed = crash.reply(kGpuPod);
  EXPECT_EQ(failed["response"]["allowed"], false);
  EXPECT_EQ(failed["response"]["status"]["code"], 500);
  EXPECT_EQ(failed["response"]["status"]["message"],
            "admission plugin failed: vgpu.review: probe.mutate_container: probe crashed");
}

TEST(AdmissionHost, QuotaUsesTheDemandAfterDefaults) {
  Fixture f(json::object());
  NamespaceQuota q;
  q.hard = {{"example.com/cores", 150}};
  q.used = {{"example.com/cores", 60}};
  f.cluster.set_quota("ml", q);
  // The probe default gives the container cores 100: 60 + 100 > 150.
  const json denied = f.reply(kGpuPod);
  EXPECT_EQ(denied["response"]["status"]["message"],
            "exceeding resource quota in namespace ml: example.com/cores used 60 + requested 100 "
            "> limit 150");
  EXPECT_EQ(denied["response"]["status"]["code"], 403);
  // Other namespaces have no quota.
  EXPECT_EQ(f.reply(kGpuPod, "dev")["response"]["allowed"], true);
  // A container asking for fewer cores fits.
  json small = kGpuPod;
  small["spec"]["containers"][0]["resources"]["limits"]["example.com/cores"] = "90";
  EXPECT_EQ(f.reply(small)["response"]["allowed"], true);
}

TEST(AdmissionHost, NoClusterViewMeansQuotaUnknownAndPodAdmitted) {
  const Fixture f(json::object(), "vgpu", json::object(), false, /*with_cluster=*/false);
  EXPECT_EQ(f.reply(kGpuPod)["response"]["allowed"], true);
}

TEST(AdmissionHost, NamespaceLabelPluginReplacesTheDefaultPolicy) {
  Fixture f(json::object(), "namespace-label", {{"label", "gpu.example.com/sharing"}});
  f.cluster.set_label("ml", "gpu.example.com/sharing", "enabled");
  f.cluster.set_label("web", "gpu.example.com/sharing", "disabled");
  const json ml = f.reply(kGpuPod, "ml");
  EXPECT_EQ(ml["response"]["allowed"], true);
  const json patched = kGpuPod.patch(reply_patch(ml.dump()));
  EXPECT_EQ(patched["spec"]["schedulerName"], "hami-scheduler");
  EXPECT_EQ(patched["spec"]["containers"][0]["resources"]["limits"]["example.com/cores"], "100");

  const json web = f.reply(kGpuPod, "web");
  EXPECT_EQ(web["response"], json::parse(R"({"uid":"u-9","allowed":true,"status":{"metadata":{},
    "message":"namespace web is not labelled gpu.example.com/sharing=enabled","code":200}})"));
  EXPECT_EQ(f.reply(kGpuPod, "other")["response"]["status"]["message"],
            "namespace other is not labelled gpu.example.com/sharing=enabled");

  const Fixture blind(json::object(), "namespace-label", {{"label", "x"}}, false, false);
  EXPECT_EQ(blind.reply(kGpuPod)["response"]["status"]["message"],
            "namespace labels are not known; pod admitted unchanged");
}

TEST(AdmissionHost, ConcurrentReviewsGiveTheSameAnswers) {
  const Fixture f(json{{"env", {{"name", "PROBE"}, {"value", "on"}}}});
  std::vector<std::string> bodies;
  for (int i = 0; i < 8; ++i) {
    json pod = kGpuPod;
    pod["metadata"]["name"] = "p" + std::to_string(i);
    if (i % 2 == 1)
      pod["spec"]["containers"][0]["resources"]["limits"].erase("example.com/gpu");
    if (i % 4 == 3)
      pod["spec"]["schedulerName"] = "other";
    bodies.push_back(create(pod));
  }
  std::vector<std::string> expected;
  for (const std::string& body : bodies) {
    expected.push_back(f.service->handle("application/json", body).body);
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < 400; ++i) {
        const size_t k = (i + t) % bodies.size();
        if (f.service->handle("application/json", bodies[k]).body != expected[k])
          ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace hami::admission
