// Golden tests: the service with the real nvidia.so, amd.so and vgpu.so
// (config/device-config.yaml) answers each request of golden/ with exactly
// the reply written next to it; every patch applies to its request object
// with nlohmann-json's RFC 6902 implementation, changes exactly the
// expected fields, and reviewing the patched pod again yields no patch.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "admission/admission_service.hpp"
#include "memory_cluster_view.hpp"
#include "patch_check.hpp"
#include "plugin_set.hpp"
#include "test_data.hpp"

namespace hami::admission {
namespace {

using nlohmann::json;
using testing::data_file;
using testing::MemoryClusterView;
using testing::PluginSet;
using testing::reply_patch;
using testing::trimmed;

std::string golden(const std::string& file) {
  return data_file("../golden/" + file);
}

struct Service {
  explicit Service(const json& vgpu_config = json::object()) {
    plugins.vendors().admission("vgpu", vgpu_config.dump());
    service.emplace(plugins.devices(), plugins.policy(), &cluster, AdmissionSettings{});
  }
  HttpReply handle(const std::string& body) const {
    return service->handle("application/json", body);
  }

  PluginSet plugins;
  MemoryClusterView cluster;
  std::optional<AdmissionService> service;  // made once the plugins are loaded
};

NamespaceQuota quota_of(const json& spec) {
  NamespaceQuota q;
  for (const auto& [k, v] : spec.at("hard").items())
    q.hard[k] = v.get<int64_t>();
  for (const auto& [k, v] : spec.at("used").items())
    q.used[k] = v.get<int64_t>();
  return q;
}

// The fields each patched golden case must change (pointer → new value);
// nothing else may differ from the request object.
const std::map<std::string, std::map<std::string, json>>& expected_changes() {
  static const std::map<std::string, std::map<std::string, json>> changes = {
      {"gpu-no-annotations",
       {{"/spec/containers/0/resources/limits/nvidia.com~1gpucores", "100"},
        {"/spec/schedulerName", "hami-scheduler"}}},
      {"gpumem-gpucores", {{"/spec/schedulerName", "hami-scheduler"}}},
      {"amd-gpu", {{"/spec/schedulerName", "hami-scheduler"}}},
      {"init-containers",
       {{"/spec/initContainers/0/resources/limits/nvidia.com~1gpucores", "100"},
        {"/spec/schedulerName", "hami-scheduler"}}},
      {"sidecar-init-container",
       {{"/spec/containers/1/resources/limits/nvidia.com~1gpucores", "100"},
        {"/spec/schedulerName", "hami-scheduler"}}},
      {"requests-only",
       {{"/spec/containers/0/resources/limits", json{{"nvidia.com/gpucores", "100"}}},
        {"/spec/schedulerName", "hami-scheduler"}}},
      {"scheduler-name-absent", {{"/spec/schedulerName", "hami-scheduler"}}},
      {"v1beta1",
       {{"/spec/containers/0/resources/limits/nvidia.com~1gpucores", "100"},
        {"/spec/schedulerName", "hami-scheduler"}}},
      {"dry-run",
       {{"/spec/containers/0/resources/limits/nvidia.com~1gpucores", "100"},
        {"/spec/schedulerName", "hami-scheduler"}}},
      {"quota-fits", {{"/spec/schedulerName", "hami-scheduler"}}},
      {"unknown-vendor-resource",
       {{"/spec/containers/0/resources/limits/nvidia.com~1gpucores", "100"},
        {"/spec/schedulerName", "hami-scheduler"}}},
  };
  return changes;
}

TEST(AdmissionGolden, EveryCaseAnswersExactlyItsReply) {
  const json cases = json::parse(golden("cases.json"));
  ASSERT_EQ(cases.size(), 24U);
  std::set<std::string> patched_cases;
  for (const json& c : cases) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    Service s(c.value("vgpu", json::object()));
    if (c.contains("quota"))
      s.cluster.set_quota("ml", quota_of(c.at("quota")));
    const std::string request_text = golden(name + ".request.json");
    const HttpReply reply = s.handle(request_text);
    EXPECT_EQ(reply.status, 200);
    EXPECT_EQ(reply.body, trimmed(golden(name + ".reply.json")));

    const json patch = reply_patch(reply.body);
    if (patch.empty()) {
      EXPECT_EQ(expected_changes().count(name), 0U) << "expected a patch";
      continue;
    }
    patched_cases.insert(name);
    json request = json::parse(request_text);
    const json original = request.at("request").at("object");
    const json result = original.patch(patch);

    // Exactly the expected fields changed, to exactly the expected values.
    ASSERT_EQ(expected_changes().count(name), 1U) << "unexpected patch " << patch.dump();
    const auto& want = expected_changes().at(name);
    for (const auto& [pointer, value] : want) {
      EXPECT_EQ(result.at(json::json_pointer(pointer)), value) << pointer;
    }
    for (const json& op : json::diff(original, result)) {
      const std::string path = op.at("path");
      EXPECT_EQ(want.count(path), 1U) << "unexpected change " << op.dump();
    }

    // Idempotent: the patched pod gets an allowed reply without a patch.
    // One exception is HAMi's own NVIDIA rule chain for a count given in
    // requests only: the first pass adds limits[gpucores] (exclusive
    // default), and the second, now seeing a core limit without a count
    // limit, adds limits[gpu] = defaultGPUNum; the third pass is stable.
    request["request"]["object"] = result;
    const HttpReply again = s.handle(request.dump());
    json again_patch = reply_patch(again.body);
    if (name == "requests-only") {
      EXPECT_EQ(again_patch.dump(),
                R"([{"op":"add","path":"/spec/containers/0/resources/limits/nvidia.com~1gpu",)"
                R"("value":"1"}])");
      request["request"]["object"] = result.patch(again_patch);
      again_patch = reply_patch(s.handle(request.dump()).body);
    }
    EXPECT_TRUE(json::parse(again.body)["response"]["allowed"].get<bool>());
    EXPECT_TRUE(again_patch.empty()) << again_patch.dump();
  }
  EXPECT_EQ(patched_cases.size(), expected_changes().size());
}

TEST(AdmissionGolden, SeedBenchmarkRequestGetsTheSeedsReplyByteForByte) {
  const Service s;
  const HttpReply reply = s.handle(data_file("admission-gpu.json"));
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, trimmed(data_file("admission-response.json")));

  const HttpReply plain = s.handle(data_file("admission-plain.json"));
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(plain.body,
            R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":)"
            R"({"uid":"7b2e1c0d-1f3a-4b6c-8d9e-0a1b2c3d4e5f","allowed":true,)"
            R"("status":{"metadata":{},"code":200}}})");
}

TEST(AdmissionGolden, UpstreamSchemaCompleteReviewsAreAllowedUnchanged) {
  const Service s;
  EXPECT_EQ(s.handle(data_file("admission.k8s.io.v1.AdmissionReview.json")).body,
            R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":)"
            R"({"uid":"uidValue","allowed":true,"status":{"metadata":{},"code":200}}})");
  EXPECT_EQ(s.handle(data_file("admission.k8s.io.v1beta1.AdmissionReview.json")).body,
            R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","response":)"
            R"({"uid":"uidValue","allowed":true,"status":{"metadata":{},"code":200}}})");
}

}  // namespace
}  // namespace hami::admission
