// The extender verbs end to end through ExtenderService (body in, body out)
// with the real scheduler, device plugins and file cluster.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "extender/allocations_report.hpp"
#include "extender/extender_service.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(HAMI_EXTENDER_DATA) + "/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string cluster_yaml() {
  return "kind: List\nitems:\n" + nvidia_node("gpu-a", 2, 8000) + nvidia_node("gpu-b", 2, 8000) +
         "- kind: Node\n  metadata: {name: cpu-a}\n";
}

const std::string kGpuPod = pod_json("ml", "train", "uid-train",
                                     {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "3000"}}});
const std::string kCpuPod = pod_json("ml", "web", "uid-web", {{{"cpu", "1"}}});

struct Service : ::testing::Test {
  SchedulingEnv env{cluster_yaml()};
  extender::ExtenderService service{*env.scheduler};

  void add_pod(const std::string& json) {
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    env.cluster->upsert(doc);
  }
};

TEST_F(Service, FilterNodeNamesModeAnswersNamesAndReasons) {
  const auto reply = service.filter(R"({"Pod":)" + kGpuPod +
                                    R"(,"Nodes":null,"NodeNames":["gpu-a","cpu-a","gpu-b"]})");
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body,
            R"({"Nodes":null,"NodeNames":["gpu-a","gpu-b"],"FailedNodes":null,)"
            R"("FailedAndUnresolvableNodes":{"cpu-a":"node unregistered"},"Error":""})");
}

TEST_F(Service, FilterFullNodesModeEchoesTheFittingNodeObjects) {
  const std::string node_a =
      R"({"metadata":{"name":"gpu-x","annotations":{"hami.io/node-nvidia-register":)"
      R"("[{\"id\":\"GPU-x\",\"count\":10,\"devmem\":4000,\"devcore\":100,\"type\":\"NVIDIA T4\",\"health\":true}]"}},)"
      R"("status":{"allocatable":{"nvidia.com/gpu":"10"},"nodeInfo":{"kubeletVersion":"v1.29.4"}}})";
  const std::string node_b =
      R"({"metadata":{"name":"gpu-y","annotations":{"hami.io/node-nvidia-register":)"
      R"("[{\"id\":\"GPU-y\",\"count\":10,\"devmem\":2000,\"devcore\":100,\"type\":\"NVIDIA T4\",\"health\":true}]"}}})";
  const std::string plain = R"({"metadata":{"name":"plain"}})";
  const auto reply = service.filter(
      R"({"Pod":)" + kGpuPod + R"(,"Nodes":{"metadata":{},"items":[)" + node_a + "," + node_b +
      "," + plain + R"(,{"metadata":{"name":7}}]},"NodeNames":null})");
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body,
            R"({"Nodes":{"metadata":{},"items":[)" + node_a +
                R"(]},"NodeNames":null,"FailedNodes":{"gpu-y":"1/1 CardInsufficientMemory"},)"
                R"("FailedAndUnresolvableNodes":{"Nodes.items[3]":"invalid Node: /metadata/name: )"
                R"(expected a string, got a number","plain":"node unregistered"},"Error":""})");
  // Like HAMi's template-node simulation, filtering leaves no trace.
  EXPECT_EQ(env.scheduler->ledger().read()->pod("uid-train"), nullptr);
  EXPECT_EQ(env.scheduler->ledger().read()->node("gpu-x"), nullptr);
}

// Two GPU nodes (one fits the pod, one has too little memory) and one
// without devices, as full Node objects.
struct FullNodes {
  std::string fit =
      R"({"metadata":{"name":"gpu-x","annotations":{"hami.io/node-nvidia-register":)"
      R"("[{\"id\":\"GPU-x\",\"count\":10,\"devmem\":4000,\"devcore\":100,\"type\":\"NVIDIA T4\",\"health\":true}]"}},)"
      R"("status":{"allocatable":{"nvidia.com/gpu":"10"},"nodeInfo":{"kubeletVersion":"v1.29.4"}}})";
  std::string small =
      R"({"metadata":{"name":"gpu-y","annotations":{"hami.io/node-nvidia-register":)"
      R"("[{\"id\":\"GPU-y\",\"count\":10,\"devmem\":2000,\"devcore\":100,\"type\":\"NVIDIA T4\",\"health\":true}]"}}})";
  std::string plain = R"({ "metadata" : { "name" : "plain" } , "spec" : { } })";
};

TEST_F(Service, FilterTakingEchoesNodesFromTheBodyItTook) {
  const FullNodes n;
  // Spacing and an empty item: all of it is echoed or reported as sent.
  std::string body = R"({"Pod":)" + kGpuPod + R"(,"Nodes":{"metadata":{},"items":[ )" + n.fit +
                     " ,\n" + n.small + "," + n.plain + R"(,{}]},"NodeNames":null})";
  const std::string sent = body;
  const char* const bytes = body.data();
  const std::string expected =
      R"({"Nodes":{"metadata":{},"items":[)" + n.fit +
      R"(]},"NodeNames":null,"FailedNodes":{"gpu-y":"1/1 CardInsufficientMemory"},)"
      R"("FailedAndUnresolvableNodes":{"Nodes.items[3]":"invalid Node: /metadata: )"
      R"(is required","plain":"node unregistered"},"Error":""})";

  const extender::Reply reply = service.filter_taking(std::move(body));
  EXPECT_EQ(reply.status, 200);
  ASSERT_NE(reply.keep, nullptr);
  ASSERT_FALSE(reply.tail.empty());
  // The node is a view into the very bytes that were handed over.
  const auto echoed = std::find(reply.tail.begin(), reply.tail.end(), n.fit);
  ASSERT_NE(echoed, reply.tail.end());
  EXPECT_EQ(echoed->data(), bytes + sent.find(n.fit));
  EXPECT_EQ(reply.joined(), expected);
  // The copying form answers the same, whole.
  const extender::Reply copied = service.filter(sent);
  EXPECT_TRUE(copied.tail.empty());
  EXPECT_EQ(copied.body, expected);
}

TEST_F(Service, FilterTakingEchoesAPassedThroughNodeListAsSent) {
  const FullNodes n;
  const std::string list = R"({ "metadata" : {"resourceVersion":"7"}, "items" : [ )" + n.plain +
                           " , " + n.small + R"( ], "kind" : "NodeList" })";
  std::string body = R"({"Pod":)" + kCpuPod + R"(,"Nodes":)" + list + R"(,"NodeNames":["x"]})";
  const extender::Reply reply = service.filter_taking(std::move(body));
  EXPECT_EQ(reply.joined(), R"({"Nodes":)" + list +
                                R"(,"NodeNames":["x"],"FailedNodes":null,)"
                                R"("FailedAndUnresolvableNodes":null,"Error":""})");
}

TEST_F(Service, FilterTakingAnswersErrorsWhole) {
  for (std::string body : {std::string(), std::string(R"({"Pod":{"metadata":{"name":5}}})"),
                           std::string(R"({"Nodes":{"items":[1]}})"), std::string("{")}) {
    const extender::Reply reply = service.filter_taking(std::move(body));
    EXPECT_TRUE(reply.tail.empty());
    EXPECT_EQ(reply.keep, nullptr);
    EXPECT_NE(reply.body.find(R"("Error":")"), std::string::npos);
  }
}

TEST_F(Service, FilterWithoutPodIsAnError) {
  const std::string missing =
      R"({"Nodes":null,"NodeNames":null,"FailedNodes":null,"FailedAndUnresolvableNodes":null,)"
      R"("Error":"extender args missing pod"})";
  EXPECT_EQ(service.filter(R"({"NodeNames":["gpu-a"]})").body, missing);
  EXPECT_EQ(service.filter(R"({"Pod":null,"NodeNames":["gpu-a"]})").body, missing);
  EXPECT_EQ(service.filter(R"({"Pod":null})").status, 200);
}

TEST_F(Service, FilterWithNullNodeNamesIsNotACrash) {
  // HAMi bug 7.7#6 panicked here.
  const auto reply = service.filter(R"({"Pod":)" + kGpuPod + R"(,"Nodes":null,"NodeNames":null})");
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, R"({"Nodes":null,"NodeNames":null,"FailedNodes":null,)"
                        R"("FailedAndUnresolvableNodes":null,"Error":""})");
}

TEST_F(Service, FilterPassesPodsWithoutManagedResourcesThrough) {
  EXPECT_EQ(service.filter(R"({"Pod":)" + kCpuPod + R"(,"NodeNames":["cpu-a","x"]})").body,
            R"({"Nodes":null,"NodeNames":["cpu-a","x"],"FailedNodes":null,)"
            R"("FailedAndUnresolvableNodes":null,"Error":""})");
  EXPECT_EQ(service.filter(R"({"Pod":)" + kCpuPod + R"(,"NodeNames":null})").body,
            R"({"Nodes":null,"NodeNames":null,"FailedNodes":null,)"
            R"("FailedAndUnresolvableNodes":null,"Error":""})");
  // The upstream fixture: a pod with `containers: null` asks for nothing,
  // so both candidate lists come back as they were sent.
  const std::string args = fixture("ExtenderArgs.json");
  rapidjson::Document doc;
  doc.Parse(args.c_str());
  const auto reply = service.filter(args);
  rapidjson::Document got;
  got.Parse(reply.body.c_str());
  ASSERT_FALSE(got.HasParseError());
  EXPECT_TRUE(got["Nodes"] == doc["Nodes"]);
  EXPECT_TRUE(got["NodeNames"] == doc["NodeNames"]);
  EXPECT_STREQ(got["Error"].GetString(), "");
}

TEST_F(Service, FilterErrorsStayHttp200) {
  const auto decode = service.filter(R"({"NodeNames":"gpu-a"})");
  EXPECT_EQ(decode.status, 200);
  EXPECT_NE(decode.body.find(R"("Error":"json: cannot unmarshal string into Go struct field )"
                             R"(ExtenderArgs.NodeNames of type []string")"),
            std::string::npos);
  const auto bad_pod = service.filter(R"({"Pod":{"metadata":{"name":5}}})");
  EXPECT_NE(bad_pod.body.find(
                R"("Error":"invalid Pod: /metadata/name: expected a string, got a number")"),
            std::string::npos);
  EXPECT_EQ(service.filter("").status, 400);
}

// Full Node objects of more than NodeObjectCache::kKeyBytes bytes, whose
// registration comes after their first kKeyBytes.
std::string cached_node(const std::string& name, int devmem) {
  return R"({"metadata":{"name":")" + name + R"(","annotations":{"example.com/note":")" +
         std::string(extender::NodeObjectCache::kKeyBytes, 'n') +
         R"(","hami.io/node-nvidia-register":"[{\"id\":\"GPU-)" + name +
         R"(\",\"count\":10,\"devmem\":)" + std::to_string(devmem) +
         R"(,\"devcore\":100,\"type\":\"NVIDIA T4\",\"health\":true}]"}},)"
         R"("status":{"allocatable":{"nvidia.com/gpu":"10"},)"
         R"("nodeInfo":{"kubeletVersion":"v1.29.4","osImage":"Debian GNU/Linux 12 bookworm"}}})";
}

std::string cached_nodes_body(const std::string& pod, int x_memory) {
  return R"({"Pod":)" + pod + R"(,"Nodes":{"metadata":{},"items":[)" +
         cached_node("gpu-x", x_memory) + "," + cached_node("gpu-y", 2000) +
         R"(]},"NodeNames":null})";
}

TEST_F(Service, FullNodesSeenBeforeAreReusedAndAChangedNodeIsReadAgain) {
  ASSERT_GT(cached_node("gpu-y", 2000).find("devmem"), extender::NodeObjectCache::kKeyBytes);
  const std::string x_fits =
      R"({"Nodes":{"metadata":{},"items":[)" + cached_node("gpu-x", 4000) +
      R"(]},"NodeNames":null,"FailedNodes":{"gpu-y":"1/1 CardInsufficientMemory"},)"
      R"("FailedAndUnresolvableNodes":null,"Error":""})";
  EXPECT_EQ(service.filter(cached_nodes_body(kGpuPod, 4000)).body, x_fits);
  const auto warm = service.node_cache().snapshot();
  EXPECT_EQ(warm->size(), 2u);

  // The same objects again: the same answer, with nothing new to remember.
  EXPECT_EQ(service.filter(cached_nodes_body(kGpuPod, 4000)).body, x_fits);
  EXPECT_EQ(service.node_cache().snapshot(), warm);
  const std::string prioritized = service.prioritize(cached_nodes_body(kGpuPod, 4000)).body;
  EXPECT_EQ(prioritized, R"([{"Host":"gpu-x","Score":0},{"Host":"gpu-y","Score":0}])");

  // gpu-x now registers less memory: its new text is read, and it no
  // longer fits.
  const std::string none_fit =
      R"({"Nodes":null,"NodeNames":null,"FailedNodes":{"gpu-x":"1/1 CardInsufficientMemory",)"
      R"("gpu-y":"1/1 CardInsufficientMemory"},"FailedAndUnresolvableNodes":null,"Error":""})";
  EXPECT_EQ(service.filter(cached_nodes_body(kGpuPod, 2000)).body, none_fit);
  EXPECT_EQ(service.node_cache().snapshot()->size(), 2u);
  EXPECT_EQ(service.filter(cached_nodes_body(kGpuPod, 4000)).body, x_fits);

  // Without the cache the answers are the same.
  const extender::ExtenderService uncached(*env.scheduler, nullptr, {}, 0);
  EXPECT_EQ(uncached.filter(cached_nodes_body(kGpuPod, 4000)).body, x_fits);
  EXPECT_EQ(uncached.filter(cached_nodes_body(kGpuPod, 2000)).body, none_fit);
  EXPECT_EQ(uncached.prioritize(cached_nodes_body(kGpuPod, 4000)).body, prioritized);
  EXPECT_EQ(uncached.node_cache().snapshot()->size(), 0u);
}

// The devices of a cached node, as the filter kept them; null: none kept.
std::shared_ptr<const scheduling::NodeDevices> kept_devices(
    const extender::ExtenderService& service, const std::string& text) {
  const auto snapshot = service.node_cache().snapshot();
  const auto* entry = snapshot->find(text.data(), text.data() + text.size());
  return entry != nullptr ? entry->devices.get() : nullptr;
}

TEST_F(Service, FullNodesTheClusterDoesNotHoldAreDecodedOnceAcrossCalls) {
  const std::string x = cached_node("gpu-x", 4000);
  const std::string y = cached_node("gpu-y", 2000);
  const std::string x_fits =
      R"({"Nodes":{"metadata":{},"items":[)" + x +
      R"(]},"NodeNames":null,"FailedNodes":{"gpu-y":"1/1 CardInsufficientMemory"},)"
      R"("FailedAndUnresolvableNodes":null,"Error":""})";
  // The first call models the nodes for the cache; the second finds them
  // there and keeps their decode beside them.
  EXPECT_EQ(service.filter(cached_nodes_body(kGpuPod, 4000)).body, x_fits);
  EXPECT_EQ(kept_devices(service, x), nullptr);
  EXPECT_EQ(service.filter(cached_nodes_body(kGpuPod, 4000)).body, x_fits);
  const auto x_devices = kept_devices(service, x);
  const auto y_devices = kept_devices(service, y);
  ASSERT_NE(x_devices, nullptr);
  ASSERT_NE(y_devices, nullptr);
  EXPECT_EQ(x_devices->name(), "gpu-x");
  ASSERT_EQ(x_devices->device_count(), 1u);
  EXPECT_EQ(x_devices->vendors()[0].abi[0].memory_mib, 4000);

  // Later calls read the kept decode instead of decoding again.
  EXPECT_EQ(service.filter(cached_nodes_body(kGpuPod, 4000)).body, x_fits);
  EXPECT_EQ(kept_devices(service, x), x_devices);
  EXPECT_EQ(kept_devices(service, y), y_devices);

  // Usage still comes from the ledger on every call: a pod holding 2000 MiB
  // of GPU-gpu-x leaves too little for the next 3000 MiB request.
  add_pod(pod_json("ml", "held", "uid-held",
                   {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "2000"}}}, {},
                   R"({"hami.io/vgpu-node":"gpu-x",)"
                   R"("hami.io/vgpu-devices-allocated":"GPU-gpu-x,NVIDIA,2000,0:;"})"));
  EXPECT_EQ(
      service.filter(cached_nodes_body(kGpuPod, 4000)).body,
      R"({"Nodes":null,"NodeNames":null,"FailedNodes":{"gpu-x":"1/1 CardInsufficientMemory",)"
      R"("gpu-y":"1/1 CardInsufficientMemory"},"FailedAndUnresolvableNodes":null,"Error":""})");
  EXPECT_EQ(kept_devices(service, x), x_devices);
}

TEST_F(Service, FullNodesWithAMalformedRegistrationAreNotKeptDecoded) {
  // The registration cannot be read: the decode depends on what the ledger
  // held before, so it is done again on every call.
  std::string broken = cached_node("gpu-x", 4000);
  const std::string good_memory = R"(\"devmem\":4000)";
  broken.replace(broken.find(good_memory), good_memory.size(), R"(\"devmem\":\"lots\")");
  const std::string body = R"({"Pod":)" + kGpuPod + R"(,"Nodes":{"metadata":{},"items":[)" +
                           broken + R"(]},"NodeNames":null})";
  const std::string reply = service.filter(body).body;
  EXPECT_NE(reply.find(R"("FailedAndUnresolvableNodes":{"gpu-x":"node unregistered"})"),
            std::string::npos)
      << reply;
  EXPECT_EQ(service.filter(body).body, reply);
  EXPECT_EQ(service.filter(body).body, reply);
  EXPECT_EQ(kept_devices(service, broken), nullptr);
}

TEST_F(Service, PrioritizeScoresZeroToTen) {
  add_pod(pod_json(
      "ml", "busy", "uid-busy", {{{"nvidia.com/gpu", "2"}}}, {},
      R"({"hami.io/vgpu-node":"gpu-b","hami.io/vgpu-devices-allocated":"GPU-gpu-b-0,NVIDIA,8000,100:GPU-gpu-b-1,NVIDIA,8000,100:;"})"));
  const auto reply =
      service.prioritize(R"({"Pod":)" + kGpuPod + R"(,"NodeNames":["gpu-a","gpu-b","nope"]})");
  EXPECT_EQ(reply.status, 200);
  // binpack: gpu-b is full on memory and cores, 2 of 20 slots → (0.1+1+1)/3.
  EXPECT_EQ(reply.body,
            R"([{"Host":"gpu-a","Score":0},{"Host":"gpu-b","Score":7},{"Host":"nope","Score":0}])");
  EXPECT_EQ(service.prioritize(R"({"NodeNames":["a"]})").status, 400);
  EXPECT_EQ(service.prioritize(R"({"Pod":)" + kCpuPod + R"(,"NodeNames":["gpu-a"]})").body,
            R"([{"Host":"gpu-a","Score":0}])");
}

TEST_F(Service, BindWritesAllocationLockAndBinding) {
  add_pod(kGpuPod);
  const auto reply = service.bind(
      R"({"PodName":"train","PodNamespace":"ml","PodUID":"uid-train","Node":"gpu-a"})");
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, R"({"Error":""})");
  const auto pod = env.cluster->pod("ml", "train");
  EXPECT_EQ(pod->node_name, "gpu-a");
  // Two idle GPUs tie on score; HAMi's spread breaks the tie by NUMA and
  // walks from the end, so the NUMA-1 device is tried first.
  EXPECT_EQ(env.annotation("ml", "train", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-1,NVIDIA,3000,0:;");
  EXPECT_EQ(env.annotation("ml", "train", "hami.io/bind-phase"), "allocating");
  EXPECT_EQ(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"),
            "2025-06-15T15:06:40Z,ml,train");
}

TEST_F(Service, BindErrorsTravelInTheBody) {
  EXPECT_EQ(service.bind(R"({"PodName":"ghost","PodNamespace":"ml","Node":"gpu-a"})").body,
            R"({"Error":"pod \"ghost\" not found"})");
  const auto bad = service.bind(R"({"PodName":1})");
  EXPECT_EQ(bad.status, 200);
  EXPECT_EQ(bad.body, R"({"Error":"json: cannot unmarshal number into Go struct field )"
                      R"(ExtenderBindingArgs.PodName of type string"})");
  EXPECT_EQ(service.bind("").status, 400);
}

}  // namespace

namespace {

using namespace hami;
using namespace hami::testing;

TEST(AllocationsReport, ListsDevicesUsageAndChargedPods) {
  SchedulingEnv env("kind: List\nitems:\n" + nvidia_node("gpu-a", 1, 8000) + R"(- kind: Pod
  metadata: {name: run, namespace: ml, uid: u-run, annotations: {hami.io/vgpu-node: gpu-a, hami.io/bind-phase: success, hami.io/vgpu-devices-allocated: "GPU-gpu-a-0,NVIDIA,3000,30:;"}}
  spec: {containers: [{name: c}]}
)");
  EXPECT_EQ(
      extender::allocations_report(*env.scheduler),
      R"({"nodes":[{"name":"gpu-a","devices":[{"id":"GPU-gpu-a-0","type":"NVIDIA A100-SXM4-40GB",)"
      R"("vendor":"nvidia","healthy":true,"slots":10,"usedSlots":1,"memoryMiB":8000,)"
      R"("usedMemoryMiB":3000,"cores":100,"usedCores":30}]}],)"
      R"("pods":[{"namespace":"ml","name":"run","uid":"u-run","node":"gpu-a","reservation":false,)"
      R"("annotations":{"hami.io/vgpu-node":"gpu-a","hami.io/bind-phase":"success",)"
      R"("hami.io/vgpu-devices-allocated":"GPU-gpu-a-0,NVIDIA,3000,30:;"}}]})");
}

}  // namespace
