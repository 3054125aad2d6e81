// The namespace quota at admission (HAMi §2.5) at its boundaries, with the
// real nvidia.so and amd.so: a pod whose demand brings the namespace
// exactly to its limit is admitted, one unit more is denied with the
// reason naming used, requested and limit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "admission/admission_service.hpp"
#include "memory_cluster_view.hpp"
#include "plugin_set.hpp"

namespace hami::admission {
namespace {

using nlohmann::json;
using testing::MemoryClusterView;
using testing::PluginSet;

class QuotaBoundary : public ::testing::Test {
 protected:
  void start(const std::string& nvidia_config = "{}") {
    plugins.device("nvidia", nvidia_config).device("amd", "{}").admission("vgpu", "{}");
    service.emplace(plugins.devices(), plugins.policy(), &cluster, AdmissionSettings{});
  }
  void quota(std::map<std::string, int64_t, std::less<>> hard,
             std::map<std::string, int64_t, std::less<>> used) {
    NamespaceQuota q;
    q.hard = std::move(hard);
    q.used = std::move(used);
    cluster.set_quota("ml", std::move(q));
  }
  // "allowed" or the denial's message for a pod with one container asking `limits`.
  std::string admit(const json& limits) const {
    const json pod = {
        {"metadata", {{"name", "p"}}},
        {"spec", {{"containers", {{{"name", "c"}, {"resources", {{"limits", limits}}}}}}}}};
    const json review = {{"apiVersion", "admission.k8s.io/v1"},
                         {"kind", "AdmissionReview"},
                         {"request",
                          {{"uid", "u-1"},
                           {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                           {"operation", "CREATE"},
                           {"namespace", "ml"},
                           {"object", pod}}}};
    const json reply = json::parse(service->handle("application/json", review.dump()).body);
    const json& response = reply.at("response");
    if (response.at("allowed") == true)
      return "allowed";
    return response.at("status").at("message").get<std::string>();
  }

  PluginSet plugins;
  MemoryClusterView cluster;
  std::optional<AdmissionService> service;
};

TEST_F(QuotaBoundary, NvidiaMemoryExactlyAtTheLimit) {
  start();
  quota({{"nvidia.com/gpumem", 2000}}, {{"nvidia.com/gpumem", 1000}});
  EXPECT_EQ(admit({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}}), "allowed");
  EXPECT_EQ(admit({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1001"}}),
            "exceeding resource quota in namespace ml: nvidia.com/gpumem used 1000 + requested "
            "1001 > limit 2000");
  // Every card counts: 2 × 500 fits, 2 × 501 does not.
  EXPECT_EQ(admit({{"nvidia.com/gpu", "2"}, {"nvidia.com/gpumem", "500"}}), "allowed");
  EXPECT_EQ(admit({{"nvidia.com/gpu", "2"}, {"nvidia.com/gpumem", "501"}}),
            "exceeding resource quota in namespace ml: nvidia.com/gpumem used 1000 + requested "
            "1002 > limit 2000");
}

TEST_F(QuotaBoundary, NvidiaCoresExactlyAtTheLimit) {
  start();
  quota({{"nvidia.com/gpucores", 100}}, {{"nvidia.com/gpucores", 30}});
  EXPECT_EQ(
      admit({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "100"}, {"nvidia.com/gpucores", "70"}}),
      "allowed");
  EXPECT_EQ(
      admit({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "100"}, {"nvidia.com/gpucores", "71"}}),
      "exceeding resource quota in namespace ml: nvidia.com/gpucores used 30 + requested 71 "
      "> limit 100");
}

TEST_F(QuotaBoundary, NvidiaExplicitZeroLimit) {
  start();
  quota({{"nvidia.com/gpumem", 0}, {"nvidia.com/gpucores", 0}}, {});
  EXPECT_EQ(admit({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1"}}),
            "exceeding resource quota in namespace ml: nvidia.com/gpumem used 0 + requested 1 > "
            "limit 0");
  // A percentage-only request has no MiB at admission (HAMi §2.5) and no
  // cores: nothing to hold against the zero limits.
  EXPECT_EQ(admit({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "50"}}), "allowed");
  EXPECT_EQ(admit({{"nvidia.com/gpu", "1"},
                   {"nvidia.com/gpumem-percentage", "50"},
                   {"nvidia.com/gpucores", "1"}}),
            "exceeding resource quota in namespace ml: nvidia.com/gpucores used 0 + requested 1 > "
            "limit 0");
}

TEST_F(QuotaBoundary, NvidiaMemoryFactorScalesRequestAndLimit) {
  // Factor 2: 500 MiB asked is 1000 on the card; the limit 1000 is 2000.
  start(R"({"memoryFactor":2})");
  quota({{"nvidia.com/gpumem", 1000}}, {{"nvidia.com/gpumem", 1000}});
  EXPECT_EQ(admit({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "500"}}), "allowed");
  EXPECT_EQ(admit({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "501"}}),
            "exceeding resource quota in namespace ml: nvidia.com/gpumem used 1000 + requested "
            "1002 > limit 1000 x memory factor 2");
}

TEST_F(QuotaBoundary, AmdMemoryAndCoresExactlyAtTheLimit) {
  start();
  quota({{"amd.com/gpumem", 8192}, {"amd.com/gpucores", 100}},
        {{"amd.com/gpumem", 4096}, {"amd.com/gpucores", 50}});
  EXPECT_EQ(admit({{"amd.com/gpu", "1"}, {"amd.com/gpumem", "4096"}, {"amd.com/gpucores", "50"}}),
            "allowed");
  EXPECT_EQ(admit({{"amd.com/gpu", "1"}, {"amd.com/gpumem", "4097"}, {"amd.com/gpucores", "50"}}),
            "exceeding resource quota in namespace ml: amd.com/gpumem used 4096 + requested 4097 "
            "> limit 8192");
  EXPECT_EQ(admit({{"amd.com/gpu", "1"}, {"amd.com/gpumem", "4096"}, {"amd.com/gpucores", "51"}}),
            "exceeding resource quota in namespace ml: amd.com/gpucores used 50 + requested 51 > "
            "limit 100");
}

}  // namespace
}  // namespace hami::admission
