// A pod of each further vendor end to end against the fake API server over
// HTTPS: webhook → filter → bind, on the nodes and running pods of
// config/vendors-cluster.yaml, loaded into the API server. Each ends with
// the allocation the vendor's node-side plugin reads, as the API server
// stores it, and with the node lock the vendor's node plugin expects.
#include "host_fixture.hpp"
#include "vendors_cluster.hpp"

namespace hami::e2e {
namespace {

const char* const kNodes[] = {"dcu-z100-0", "bi150-0", "biren-0",
                              "mlu-370-0",  "va-0",    "npu-910b3-0"};

struct VendorCase {
  const char* pod;
  const char* node;
  // The admission patch (decoded), and the allocation annotations after
  // bind: key → value.
  std::string patch;
  std::vector<std::pair<std::string, std::string>> annotations;
  const char* lock;  // the node annotation bind takes
};

struct VendorsE2E : HostFixture, ::testing::WithParamInterface<VendorCase> {
  json snapshot;
  VendorsE2E() {
    snapshot = load_vendors_cluster();
    for (const json& item : snapshot["items"]) {
      const bool running = item["kind"] == "Pod" && item["spec"].contains("nodeName");
      if (item["kind"] != "Pod" || running)
        fake.apply(item.dump());
    }
    start_host(use_vendor_plugins);
  }

  json pending(const std::string& name) const { return snapshot_pod(snapshot, name); }
};

TEST_P(VendorsE2E, WebhookFilterBind) {
  const VendorCase& v = GetParam();
  ASSERT_TRUE(
      eventually([&] { return call(host->server().port(), "GET", "/readyz").status == 200; }));

  // Webhook: the pod as created, without a scheduler name.
  json pod = pending(v.pod);
  ASSERT_FALSE(pod.is_null()) << v.pod;
  pod["spec"].erase("schedulerName");
  pod["metadata"].erase("uid");
  pod.erase("status");
  const auto admitted = call(host->server().port(), "POST", "/mutate-pod",
                             admission_review(pod, std::string("review-") + v.pod, "ml").dump());
  ASSERT_EQ(admitted.status, 200);
  const json response = json::parse(admitted.body)["response"];
  EXPECT_TRUE(response["allowed"].get<bool>()) << admitted.body;
  EXPECT_EQ(decode_base64(response["patch"].get<std::string>()), v.patch);

  // The API server stores the patched pod.
  pod["spec"]["schedulerName"] = "hami-scheduler";
  const json patch = json::parse(decode_base64(response["patch"].get<std::string>()));
  pod = pod.patch(patch);
  fake.apply(pod.dump());
  const json created = stored(fake, "Pod", "ml", v.pod);
  auto& stack = host->extender();
  ASSERT_TRUE(eventually([&] { return stack.cluster->pod("ml", v.pod) != nullptr; }));
  ASSERT_TRUE(eventually([&] { return stack.gate().empty(); })) << stack.gate();

  json names = json::array();
  for (const char* n : kNodes)
    names.push_back(n);
  const json filter_args = {{"Pod", created}, {"NodeNames", names}};
  const auto filtered = call(host->extender_server().port(), "POST", "/filter", filter_args.dump());
  EXPECT_EQ(filtered.status, 200);
  const json result = json::parse(filtered.body);
  EXPECT_EQ(result["NodeNames"], json::array({v.node})) << filtered.body;
  EXPECT_EQ(result["FailedAndUnresolvableNodes"].size(), 5u) << filtered.body;

  const json bind_args = {{"PodName", v.pod},
                          {"PodNamespace", "ml"},
                          {"PodUID", created["metadata"]["uid"]},
                          {"Node", v.node}};
  const auto bound = call(host->extender_server().port(), "POST", "/bind", bind_args.dump());
  EXPECT_EQ(bound.body, R"({"Error":""})");

  const json after = stored(fake, "Pod", "ml", v.pod);
  EXPECT_EQ(after["spec"]["nodeName"], v.node);
  EXPECT_EQ(annotation(after, "hami.io/bind-phase"), "allocating");
  EXPECT_EQ(annotation(after, "hami.io/vgpu-node"), v.node);
  for (const auto& [key, value] : v.annotations)
    EXPECT_EQ(annotation(after, key), value) << key;
  const json node = stored(fake, "Node", "", v.node);
  EXPECT_NE(annotation(node, v.lock), "<none>") << v.lock;
  // Only the lock the vendor's node plugin knows.
  const std::string other = std::string(v.lock) == "hami.io/mutex.lock" ? "cambricon.com/dsmlu.lock"
                                                                        : "hami.io/mutex.lock";
  EXPECT_EQ(annotation(node, other), "<none>");
}

const std::string kSchedulerOnly =
    R"([{"op":"add","path":"/spec/schedulerName","value":"hami-scheduler"}])";

INSTANTIATE_TEST_SUITE_P(
    Vendors, VendorsE2E,
    ::testing::Values(
        VendorCase{"demo-dcu",
                   "dcu-z100-0",
                   kSchedulerOnly,
                   {{"hami.io/dcu-devices-to-allocate", "DCU-Z100L-0003,DCU,8192,30:;"},
                    {"hami.io/dcu-devices-allocated", "DCU-Z100L-0003,DCU,8192,30:;"}},
                   "hami.io/mutex.lock"},
        // HAMi's Iluvatar admission names the container for the node plugin.
        VendorCase{"demo-bi150",
                   "bi150-0",
                   R"([{"op":"add","path":"/spec/containers/0/env","value":[]},)"
                   R"({"op":"add","path":"/spec/containers/0/env/0","value":)"
                   R"({"name":"SOL_CONTINER_NAME","value":"demo"}},)"
                   R"({"op":"add","path":"/spec/schedulerName","value":"hami-scheduler"}])",
                   {{"hami.io/BI-V150-devices-allocated", "BI150-0001,BI-V150,8192,50:;"}},
                   "hami.io/mutex.lock"},
        VendorCase{"demo-biren",
                   "biren-0",
                   kSchedulerOnly,
                   {{"hami.io/Biren-devices-allocated", "BR-106C-0001,Biren,0,0:;"}},
                   "hami.io/mutex.lock"},
        VendorCase{"demo-mlu",
                   "mlu-370-0",
                   kSchedulerOnly,
                   {{"hami.io/cambricon-mlu-devices-allocated",
                     "mlu-370-0-cambricon-mlu-3,MLU,10240,50:;"},
                    {"CAMBRICON_DSMLU_PROFILE", "3_50_40"},
                    {"CAMBRICON_DSMLU_ASSIGNED", "false"}},
                   "cambricon.com/dsmlu.lock"},
        VendorCase{
            "demo-va",
            "va-0",
            kSchedulerOnly,
            {{"hami.io/Vastai-devices-allocated", "va1-die1,Vastai,0,0:va1-die0,Vastai,0,0:;"}},
            "hami.io/mutex.lock"},
        VendorCase{"demo-npu",
                   "npu-910b3-0",
                   // Ascend mirrors the memory into the requests (HAMi 1.2 step 7).
                   R"([{"op":"add","path":"/spec/containers/0/resources/requests","value":{}},)"
                   R"({"op":"add","path":)"
                   R"("/spec/containers/0/resources/requests/huawei.com~1Ascend910B3-memory",)"
                   R"("value":"16384"},)"
                   R"({"op":"add","path":"/spec/schedulerName","value":"hami-scheduler"}])",
                   {{"hami.io/Ascend910B3-devices-allocated", "NPU-910B3-7,Ascend910B3,16384,0:;"},
                    {"huawei.com/Ascend910B3",
                     R"([{"UUID":"NPU-910B3-7","temp":"vir05_1c_16g","memory":16384}])"}},
                   "hami.io/mutex.lock"}),
    [](const ::testing::TestParamInfo<VendorCase>& param_info) {
      std::string name = param_info.param.pod;
      for (char& ch : name) {
        if (ch == '-')
          ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace hami::e2e
