// The further HAMi vendors on their snapshot (config/vendors-cluster.yaml,
// docs/vendors.md): for each, the pending pod is filtered over every node
// of the snapshot and bound to the one node of its vendor, with the
// allocation its node-side plugin reads, byte for byte. Also what ABI 1.2
// brought: Cambricon's own node lock, and the vendors' placement scores.
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <ctime>
#include <sstream>
#include <string>

#include "cluster/file_cluster.hpp"
#include "cluster/node_lock.hpp"
#include "extender/extender_service.hpp"
#include "extender/extender_stack.hpp"
#include "k8s/pod.hpp"
#include "scheduling/scheduler.hpp"

namespace {

using namespace hami;

constexpr int64_t kNow = 1'750'000'500;

// The scheduler stamps locks and times with the wall clock: a value within
// a minute of now.
bool recent(int64_t unix_seconds) {
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  return unix_seconds <= now && unix_seconds > now - 60;
}
bool recent_rfc3339(const std::string& text) {
  const auto t = cluster::parse_rfc3339(text);
  return t && recent(*t);
}

struct VendorsStack : ::testing::Test {
  std::ostringstream log_sink;
  log::Logger logger{log::Level::warn, log::Format::text, &log_sink};
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [] { return kNow; }};
  host::PluginRegistry registry = host::PluginRegistry::load(
      {HAMI_PLUGIN_DIR, true},
      {{"hygon", "hygon.so", HAMI_KIND_DEVICE, "{}"},
       {"bi-v150", "iluvatar.so", HAMI_KIND_DEVICE, R"({"commonWord":"BI-V150"})"},
       {"biren", "biren.so", HAMI_KIND_DEVICE, "{}"},
       {"cambricon", "cambricon.so", HAMI_KIND_DEVICE, "{}"},
       {"vastai", "vastai.so", HAMI_KIND_DEVICE, "{}"},
       {"ascend910b3", "ascend.so", HAMI_KIND_DEVICE, R"({"commonWord":"Ascend910B3"})"},
       {"hami-policies", "hami-policies.so", HAMI_KIND_SCHEDULING, "{}"}},
      services);
  config::HostConfig config = [] {
    config::HostConfig c;
    c.cluster.file = std::string(HAMI_SOURCE_DIR) + "/config/vendors-cluster.yaml";
    return c;
  }();
  std::unique_ptr<extender::ExtenderStack> stack =
      extender::make_extender_stack(config, registry, logger);
  extender::ExtenderService service{*stack->scheduler, &logger};

  std::string pod_json(const char* name) const {
    const auto* file = dynamic_cast<const cluster::FileClusterState*>(stack->cluster.get());
    rapidjson::Document list;
    list.Parse(file->to_json().c_str());
    for (const auto& item : list["items"].GetArray()) {
      if (std::string_view(item["kind"].GetString()) == "Pod" &&
          std::string_view(item["metadata"]["name"].GetString()) == name) {
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        item.Accept(writer);
        return buffer.GetString();
      }
    }
    return "null";
  }
  std::string filter(const char* pod) const {
    return service
        .filter(R"({"Pod":)" + pod_json(pod) +
                R"(,"NodeNames":["dcu-z100-0","bi150-0","biren-0","mlu-370-0","va-0",)"
                R"("npu-910b3-0"]})")
        .body;
  }
  std::string bind(const char* pod, const char* node) const {
    return service
        .bind(std::string(R"({"PodName":")") + pod + R"(","PodNamespace":"ml","Node":")" + node +
              R"("})")
        .body;
  }
  std::string annotation(const char* pod, const char* key) const {
    const auto p = stack->cluster->pod("ml", pod);
    const auto v = p ? p->annotation(key) : std::nullopt;
    return v ? std::string(*v) : "<absent>";
  }
  std::string node_annotation(const char* node, const char* key) const {
    const auto n = stack->cluster->node(node);
    const auto v = n ? n->annotation(key) : std::nullopt;
    return v ? std::string(*v) : "<absent>";
  }
};

// Every node but `fits` fails the pod; the vendors it does not use are
// unregistered for it.
std::string only(const std::string& fits) {
  std::string unresolvable;
  for (const char* n : {"bi150-0", "biren-0", "dcu-z100-0", "mlu-370-0", "npu-910b3-0", "va-0"}) {
    if (fits == n)
      continue;
    unresolvable +=
        std::string(unresolvable.empty() ? "" : ",") + "\"" + n + "\":\"NodeInsufficientDevice\"";
  }
  return R"({"Nodes":null,"NodeNames":[")" + fits +
         R"("],"FailedNodes":null,"FailedAndUnresolvableNodes":{)" + unresolvable +
         R"(},"Error":""})";
}

TEST_F(VendorsStack, SnapshotHasANodeOfEachVendor) {
  EXPECT_EQ(stack->cluster->nodes().size(), 6u);
  EXPECT_EQ(stack->cluster->pods().size(), 10u);
}

TEST_F(VendorsStack, HygonPodFiltersAndBinds) {
  EXPECT_EQ(filter("demo-dcu"), only("dcu-z100-0"));
  EXPECT_EQ(bind("demo-dcu", "dcu-z100-0"), R"({"Error":""})");
  // Spread (HAMi's default device policy): an idle DCU, not the busy one.
  EXPECT_EQ(annotation("demo-dcu", "hami.io/dcu-devices-allocated"),
            "DCU-Z100L-0003,DCU,8192,30:;");
  EXPECT_EQ(annotation("demo-dcu", "hami.io/dcu-devices-to-allocate"),
            "DCU-Z100L-0003,DCU,8192,30:;");
  const std::string lock = node_annotation("dcu-z100-0", "hami.io/mutex.lock");
  EXPECT_TRUE(lock.ends_with(",ml,demo-dcu") && recent_rfc3339(lock.substr(0, 20))) << lock;
}

TEST_F(VendorsStack, IluvatarPodFiltersAndBinds) {
  EXPECT_EQ(filter("demo-bi150"), only("bi150-0"));
  EXPECT_EQ(bind("demo-bi150", "bi150-0"), R"({"Error":""})");
  // 32 units of 256 MiB.
  EXPECT_EQ(annotation("demo-bi150", "hami.io/BI-V150-devices-allocated"),
            "BI150-0001,BI-V150,8192,50:;");
}

TEST_F(VendorsStack, BirenPodFiltersAndBinds) {
  EXPECT_EQ(filter("demo-biren"), only("biren-0"));
  EXPECT_EQ(bind("demo-biren", "biren-0"), R"({"Error":""})");
  EXPECT_EQ(annotation("demo-biren", "hami.io/Biren-devices-allocated"),
            "BR-106C-0001,Biren,0,0:;");
}

TEST_F(VendorsStack, CambriconPodTakesItsOwnLockNotTheSharedOne) {
  EXPECT_EQ(filter("demo-mlu"), only("mlu-370-0"));
  EXPECT_EQ(bind("demo-mlu", "mlu-370-0"), R"({"Error":""})");
  EXPECT_EQ(annotation("demo-mlu", "hami.io/cambricon-mlu-devices-allocated"),
            "mlu-370-0-cambricon-mlu-3,MLU,10240,50:;");
  EXPECT_EQ(annotation("demo-mlu", "CAMBRICON_DSMLU_PROFILE"), "3_50_40");
  EXPECT_EQ(annotation("demo-mlu", "CAMBRICON_DSMLU_ASSIGNED"), "false");
  // The time alone, as HAMi's Cambricon lock.
  EXPECT_TRUE(recent_rfc3339(node_annotation("mlu-370-0", "cambricon.com/dsmlu.lock")));
  EXPECT_EQ(node_annotation("mlu-370-0", "hami.io/mutex.lock"), "<absent>");
}

TEST_F(VendorsStack, AFailedBindReleasesOnlyTheCambriconLockItTook) {
  EXPECT_EQ(bind("demo-mlu", "mlu-370-0"), R"({"Error":""})");
  const std::string held = node_annotation("mlu-370-0", "cambricon.com/dsmlu.lock");
  ASSERT_TRUE(recent_rfc3339(held)) << held;
  // A second MLU pod finds the lock held: contention, and the first pod's
  // lock stays. HAMi's failed bind deleted it whoever held it (X2), so the
  // lock serialised at most two binds.
  EXPECT_EQ(bind("demo-mlu-2", "mlu-370-0"),
            R"({"Error":"node mlu-370-0 has been locked within 2m0s: node lock )"
            R"(cambricon.com/dsmlu.lock contention"})");
  EXPECT_EQ(node_annotation("mlu-370-0", "cambricon.com/dsmlu.lock"), held);
  EXPECT_EQ(annotation("demo-mlu-2", "hami.io/cambricon-mlu-devices-allocated"), "<absent>");
}

TEST_F(VendorsStack, VastaiDiesOfOneCardAreTakenTogether) {
  EXPECT_EQ(filter("demo-va"), only("va-0"));
  EXPECT_EQ(bind("demo-va", "va-0"), R"({"Error":""})");
  const std::string allocated = annotation("demo-va", "hami.io/Vastai-devices-allocated");
  // Both dies of one AIC (card), whichever card the spread order tried first.
  EXPECT_TRUE(allocated == "va1-die1,Vastai,0,0:va1-die0,Vastai,0,0:;" ||
              allocated == "va0-die1,Vastai,0,0:va0-die0,Vastai,0,0:;")
      << allocated;
}

TEST_F(VendorsStack, AscendPodGetsItsTemplateAndRuntimeInfo) {
  EXPECT_EQ(filter("demo-npu"), only("npu-910b3-0"));
  EXPECT_EQ(bind("demo-npu", "npu-910b3-0"), R"({"Error":""})");
  const std::string allocated = annotation("demo-npu", "hami.io/Ascend910B3-devices-allocated");
  EXPECT_EQ(allocated, "NPU-910B3-7,Ascend910B3,16384,0:;");
  EXPECT_EQ(annotation("demo-npu", "huawei.com/Ascend910B3"),
            R"([{"UUID":"NPU-910B3-7","temp":"vir05_1c_16g","memory":16384}])");
  EXPECT_TRUE(recent(std::stoll(annotation("demo-npu", "predicate-time"))));
}

// Ascend's placement term (score_placement, ABI 1.2) in the node score:
// two 910B3 nodes, each with two free NPUs and the same usage; on npu-a they
// are in different HCCS rings (NetworkID 0 and 1), on npu-b in one. HAMi's
// ScoreNode gives max-per-ring / devices x 10: 5 and 10.
std::string npu_node(const char* name, const char* busy_a, const char* busy_b) {
  std::string reg = "[";
  for (int i = 0; i < 8; ++i) {
    reg += std::string(i ? "," : "") + R"({"id":")" + name + "-" + std::to_string(i) +
           R"(","index":)" + std::to_string(i) +
           R"(,"count":4,"devmem":65536,"devcore":20,"type":"Ascend910B3","health":true,)" +
           R"("custominfo":{"NetworkID":)" + (i > 3 ? "1" : "0") + "}}";
  }
  reg += "]";
  std::string busy;
  std::string alloc;
  for (int i = 0; i < 8; ++i) {
    const std::string id = std::string(name) + "-" + std::to_string(i);
    if (id == busy_a || id == busy_b)
      continue;
    alloc += id + ",Ascend910B3,65536,0:";
  }
  return std::string(R"(
- kind: Node
  metadata:
    name: )") +
         name + R"(
    annotations:
      hami.io/node-register-Ascend910B3: ')" +
         reg + R"('
      hami.io/node-handshake-Ascend910B3: "Reported_2025-06-15 15:00:00"
      hami-vnpu-core: "false"
  status:
    allocatable: {huawei.com/Ascend910B3: "32"}
- kind: Pod
  metadata:
    name: )" +
         name + R"(-train
    namespace: ml
    uid: uid-)" +
         name + R"(
    annotations:
      hami.io/vgpu-node: )" +
         name + R"(
      hami.io/bind-phase: success
      hami.io/Ascend910B3-devices-allocated: ")" +
         alloc + R"(;"
  spec:
    nodeName: )" +
         name + R"(
    containers:
    - name: train
      resources: {limits: {huawei.com/Ascend910B3: "6"}}
  status: {phase: Running}
)";
}

struct AscendPlacementScore : ::testing::Test {
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [] { return kNow; }};
  host::PluginRegistry registry = host::PluginRegistry::load(
      {HAMI_PLUGIN_DIR, true},
      {{"ascend910b3", "ascend.so", HAMI_KIND_DEVICE, R"({"commonWord":"Ascend910B3"})"},
       {"hami-policies", "hami-policies.so", HAMI_KIND_SCHEDULING, "{}"}},
      services);
  // npu-a: NPUs 3 (ring 0) and 4 (ring 1) free; npu-b: 6 and 7 (ring 1).
  std::unique_ptr<cluster::FileClusterState> cluster = cluster::FileClusterState::from_text(
      "kind: List\nitems:" + npu_node("npu-a", "npu-a-3", "npu-a-4") +
          npu_node("npu-b", "npu-b-6", "npu-b-7"),
      "npu.yaml");

  std::vector<scheduling::HostScore> prioritize(const char* node_policy) {
    scheduling::SchedulerOptions options;
    options.clock = [] { return kNow; };
    scheduling::Scheduler scheduler(*cluster, registry.devices(), registry.scheduling(), options);
    const std::string text = std::string(R"({"metadata":{"name":"two-npus","namespace":"ml",)") +
                             R"("uid":"u2","annotations":{"hami.io/node-scheduler-policy":")" +
                             node_policy +
                             R"("}},"spec":{"containers":[{"name":"c","resources":{"limits":)" +
                             R"({"huawei.com/Ascend910B3":"2"}}}]}})";
    rapidjson::Document doc;
    doc.Parse(text.c_str());
    const k8s::PodModel pod(doc);
    const std::vector<std::string> names = {"npu-a", "npu-b"};
    return scheduler.prioritize(pod, names);
  }
};

TEST_F(AscendPlacementScore, BinpackPrefersTheNodeWhoseNpusShareARing) {
  // Default score 31.25 on both (HAMi's 9.375 x 100/30); npu-b adds 10 x
  // 100/30, npu-a 5 x 100/30: 64.6 and 47.9, i.e. 6 and 5.
  const auto scores = prioritize("binpack");
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_EQ(scores[0].host, "npu-a");
  EXPECT_EQ(scores[0].score, 5);
  EXPECT_EQ(scores[1].host, "npu-b");
  EXPECT_EQ(scores[1].score, 6);
}

TEST_F(AscendPlacementScore, SpreadCountsTheRawTermAgainstTheNodeAsHamiDoes) {
  // HAMi adds the term raw and spread keeps the lowest score (X10, kept):
  // 68.75 - 33.3 and 68.75 - 16.7, i.e. 4 and 5.
  const auto scores = prioritize("spread");
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_EQ(scores[0].score, 5);
  EXPECT_EQ(scores[1].score, 4);
}

}  // namespace
