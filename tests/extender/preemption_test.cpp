// The preempt verb: the ExtenderPreemptionArgs decoder and result encoder
// against the upstream wire strings, Scheduler::preempt's answer on a small
// cluster, and POST /preemption over HTTPS with exact bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "extender/extender_service.hpp"
#include "extender/preemption_args.hpp"
#include "extender/preemption_route.hpp"
#include "scheduling_env.hpp"
#include "server/router.hpp"
#ifdef HAMI_HAVE_SERVER_TEST_SUPPORT
#include "test_support.hpp"
#endif

namespace {

using namespace hami;
using namespace hami::testing;

std::string read_data(const std::string& name) {
  std::ifstream in(std::string(HAMI_EXTENDER_DATA) + "/" + name);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  return text;
}

std::string refusal(std::string_view body) {
  try {
    (void)extender::decode_preemption_args(body);
    return "decoded";
  } catch (const extender::DecodeError& e) {
    return e.what();
  }
}

TEST(PreemptionCodec, UpstreamArgsReadTheMetaFormWhenBothAreSent) {
  const auto args = extender::decode_preemption_args(read_data("ExtenderPreemptionArgs.json"));
  ASSERT_NE(args.pod, nullptr);
  EXPECT_TRUE(args.meta);
  ASSERT_EQ(args.candidates.size(), 1u);
  EXPECT_EQ(args.candidates[0].node, "foo");
  EXPECT_EQ(args.candidates[0].pdb_violations, 1);
  ASSERT_EQ(args.candidates[0].victims.size(), 1u);
  EXPECT_EQ(args.candidates[0].victims[0].uid, "myuid");
  EXPECT_FALSE(args.candidates[0].victims[0].rank.has_value());
}

TEST(PreemptionCodec, FullFormReadsUidPriorityAndStartTime) {
  const auto args = extender::decode_preemption_args(
      R"({"Pod":{"metadata":{"name":"p"}},"NodeNameToMetaVictims":null,"NodeNameToVictims":{)"
      R"("n2":{"Pods":[{"metadata":{"name":"a","uid":"ua"},"spec":{"priority":5},)"
      R"("status":{"startTime":"2025-06-15T15:06:30Z"}},null,{"metadata":{"uid":"ub"}}],)"
      R"("NumPDBViolations":0},"n1":null}})");
  EXPECT_FALSE(args.meta);
  ASSERT_EQ(args.candidates.size(), 2u);
  EXPECT_EQ(args.candidates[0].node, "n1");  // byte order
  EXPECT_TRUE(args.candidates[0].victims.empty());
  const auto& n2 = args.candidates[1];
  EXPECT_EQ(n2.node, "n2");
  ASSERT_EQ(n2.victims.size(), 2u);  // the null pointer names no pod
  EXPECT_EQ(n2.victims[0].uid, "ua");
  ASSERT_TRUE(n2.victims[0].rank.has_value());
  EXPECT_EQ(n2.victims[0].rank->priority, 5);
  EXPECT_EQ(n2.victims[0].rank->start, 1749999990);
  EXPECT_EQ(n2.victims[1].uid, "ub");
  EXPECT_EQ(n2.victims[1].rank->priority, 0);
  EXPECT_EQ(n2.victims[1].rank->start, scheduling::VictimRank::kNotStarted);
}

TEST(PreemptionCodec, KeysAreMatchedAsGoMatchesThem) {
  const auto args = extender::decode_preemption_args(
      R"({"pod":{},"nodenametometavictims":{"n":{"pods":[{"uid":"x"},{"UID":"y","Uid":"z"}],)"
      R"("numpdbviolations":3}}})");
  ASSERT_NE(args.pod, nullptr);
  ASSERT_EQ(args.candidates.size(), 1u);
  ASSERT_EQ(args.candidates[0].victims.size(), 2u);
  EXPECT_EQ(args.candidates[0].victims[0].uid, "x");
  EXPECT_EQ(args.candidates[0].victims[1].uid, "z");  // a later duplicate wins
  EXPECT_EQ(args.candidates[0].pdb_violations, 3);
}

TEST(PreemptionCodec, RefusalsSayWhatIsWrong) {
  EXPECT_EQ(refusal("{"), "invalid JSON at offset 1: Missing a name for object member.");
  EXPECT_EQ(refusal("[]"),
            "json: cannot unmarshal array into Go value of type v1.ExtenderPreemptionArgs");
  EXPECT_EQ(refusal(R"({"Pod":1})"),
            "json: cannot unmarshal number into Go struct field ExtenderPreemptionArgs.Pod of "
            "type v1.Pod");
  EXPECT_EQ(refusal(R"({"NodeNameToMetaVictims":[]})"),
            "json: cannot unmarshal array into Go struct field "
            "ExtenderPreemptionArgs.NodeNameToMetaVictims of type map[string]*v1.MetaVictims");
  EXPECT_EQ(refusal(R"({"NodeNameToMetaVictims":{"n":{"Pods":{}}}})"),
            "json: cannot unmarshal object into Go struct field MetaVictims.Pods of type "
            "[]*v1.MetaPod");
  EXPECT_EQ(refusal(R"({"NodeNameToMetaVictims":{"n":{"Pods":[{"UID":7}]}}})"),
            "json: cannot unmarshal number into Go struct field MetaPod.UID of type string");
  EXPECT_EQ(refusal(R"({"NodeNameToMetaVictims":{"n":{"NumPDBViolations":1.5}}})"),
            "json: cannot unmarshal number into Go struct field MetaVictims.NumPDBViolations of "
            "type int64");
  EXPECT_EQ(refusal(R"({"NodeNameToVictims":{"n":{"Pods":["x"]}}})"),
            "json: cannot unmarshal string into Go struct field Victims.Pods of type v1.Pod");
  EXPECT_EQ(refusal(R"({"NodeNameToVictims":{"n":{"Pods":[{"spec":{"priority":"hi"}}]}}})"),
            "json: cannot unmarshal string into Go struct field Pod.spec.priority of type int32");
  EXPECT_EQ(refusal(R"({"NodeNameToVictims":{"n":{"Pods":[{"status":{"startTime":"soon"}}]}}})"),
            "parsing time \"soon\": not RFC 3339");
  EXPECT_EQ(refusal(std::string(600, '[') + std::string(600, ']')),
            "request body nests JSON deeper than 512 levels");
}

TEST(PreemptionCodec, ResultIsTheUpstreamWireString) {
  const std::vector<scheduling::NodeVictims> nodes = {{"foo", {"myuid"}, 1}};
  EXPECT_EQ(extender::encode_preemption_result(nodes), read_data("ExtenderPreemptionResult.json"));
  const std::vector<scheduling::NodeVictims> two = {{"b", {"u2", "u1"}, 0}, {"a", {"u3"}, 2}};
  EXPECT_EQ(extender::encode_preemption_result(two),
            R"({"NodeNameToMetaVictims":{"a":{"Pods":[{"UID":"u3"}],"NumPDBViolations":2},)"
            R"("b":{"Pods":[{"UID":"u2"},{"UID":"u1"}],"NumPDBViolations":0}}})");
  EXPECT_EQ(extender::encode_preemption_result({}), R"({"NodeNameToMetaVictims":{}})");
}

// A running pod on `node` holding `allocated` (HAMi's allocation string, or
// "" for a pod holding none of our devices).
std::string running_pod(std::string_view name, std::string_view uid, std::string_view node,
                        int priority, std::string_view start, std::string_view allocated) {
  const std::string annotations = allocated.empty()
                                      ? std::string("{}")
                                      : R"({"hami.io/vgpu-node":")" + std::string(node) +
                                            R"(","hami.io/vgpu-devices-allocated":")" +
                                            std::string(allocated) + R"("})";
  std::string pod = pod_json(
      "ml", name, uid, {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}}}, {}, annotations);
  pod.replace(
      pod.find(R"("schedulerName")"), 0,
      R"("nodeName":")" + std::string(node) + R"(","priority":)" + std::to_string(priority) + ",");
  pod.replace(pod.find(R"("phase":"Pending")"), 17,
              R"("phase":"Running","startTime":")" + std::string(start) + R"(")");
  return pod;
}

void add(SchedulingEnv& env, const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json;
  env.cluster->upsert(doc);
}

// gpu-a: two 8000 MiB GPUs. GPU 0 holds low-0 (priority 0, 5000 MiB) and
// low-1 (priority 0, 2000 MiB, started later); GPU 1 holds mid (priority 50,
// 7000 MiB) and top (priority 1000, 1000 MiB). cpu-hog holds no device.
// gpu-b: one GPU held by top-b (priority 1000).
struct PreemptCluster : ::testing::Test {
  SchedulingEnv env{"kind: List\nitems:\n" + nvidia_node("gpu-a", 2, 8000) +
                    nvidia_node("gpu-b", 1, 8000)};
  void SetUp() override {
    add(env, running_pod("low-0", "uid-low-0", "gpu-a", 0, "2025-01-01T00:00:00Z",
                         "GPU-gpu-a-0,NVIDIA,5000,0:;"));
    add(env, running_pod("low-1", "uid-low-1", "gpu-a", 0, "2025-01-02T00:00:00Z",
                         "GPU-gpu-a-0,NVIDIA,2000,0:;"));
    add(env, running_pod("mid", "uid-mid", "gpu-a", 50, "2025-01-01T00:00:00Z",
                         "GPU-gpu-a-1,NVIDIA,7000,0:;"));
    add(env, running_pod("top", "uid-top", "gpu-a", 1000, "2025-01-01T00:00:00Z",
                         "GPU-gpu-a-1,NVIDIA,1000,0:;"));
    add(env, running_pod("cpu-hog", "uid-cpu-hog", "gpu-a", 10, "2025-01-03T00:00:00Z", ""));
    add(env, running_pod("top-b", "uid-top-b", "gpu-b", 1000, "2025-01-01T00:00:00Z",
                         "GPU-gpu-b-0,NVIDIA,8000,0:;"));
  }
};

// The pending pod: priority 100, one GPU of `memory` MiB.
std::string pending(int memory) {
  std::string pod =
      pod_json("ml", "want", "uid-want",
               {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", std::to_string(memory)}}});
  pod.replace(pod.find(R"("schedulerName")"), 0, R"("priority":100,)");
  return pod;
}

std::string meta_args(int memory) {
  return R"({"Pod":)" + pending(memory) +
         R"(,"NodeNameToVictims":null,"NodeNameToMetaVictims":{)"
         R"("gpu-a":{"Pods":[{"UID":"uid-cpu-hog"}],"NumPDBViolations":0},)"
         R"("gpu-b":{"Pods":[{"UID":"uid-cpu-hog"}],"NumPDBViolations":1}}})";
}

TEST_F(PreemptCluster, AddsTheSmallestGpuSetToKubeSchedulersVictims) {
  // 6000 MiB: GPU 0 frees 8000 with both low pods gone, 6000 with only
  // low-0 gone; GPU 1 frees 7000 with mid gone (priority 50 > 0). The
  // smallest by kube-scheduler's key: the lowest highest priority (0), then
  // the smallest priority sum: low-0 alone.
  const auto r = extender::preemption_reply(*env.scheduler, meta_args(6000));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"NodeNameToMetaVictims":{"gpu-a":{"Pods":[{"UID":"uid-cpu-hog"},)"
                    R"({"UID":"uid-low-0"}],"NumPDBViolations":0}}})");
}

TEST_F(PreemptCluster, ClimbsToAHigherPriorityOnlyWhenTheLowerCannotFree) {
  // 7000 MiB: GPU 0 has 8000 only without both low pods (sum 2×2^31);
  // GPU 1 has 7000 without mid (priority 50). Priority 0 first: both lows.
  auto r = extender::preemption_reply(*env.scheduler, meta_args(7000));
  EXPECT_EQ(r.body, R"({"NodeNameToMetaVictims":{"gpu-a":{"Pods":[{"UID":"uid-cpu-hog"},)"
                    R"({"UID":"uid-low-0"},{"UID":"uid-low-1"}],"NumPDBViolations":0}}})");
  // 7500 MiB: still GPU 0 without both (GPU 1 without mid has 7000).
  r = extender::preemption_reply(*env.scheduler, meta_args(7500));
  EXPECT_EQ(r.body, R"({"NodeNameToMetaVictims":{"gpu-a":{"Pods":[{"UID":"uid-cpu-hog"},)"
                    R"({"UID":"uid-low-0"},{"UID":"uid-low-1"}],"NumPDBViolations":0}}})");
  // 8500 MiB: no GPU has that much; top (priority 1000) may not go anyway.
  r = extender::preemption_reply(*env.scheduler, meta_args(8500));
  EXPECT_EQ(r.body, R"({"NodeNameToMetaVictims":{}})");
}

TEST_F(PreemptCluster, KeepsKubeSchedulersVictimsAndTheirGpus) {
  // kube-scheduler proposes mid (for its CPU, say): it goes in any case and
  // frees 7000 MiB of GPU 1, enough for 6000 MiB alone.
  const std::string body =
      R"({"Pod":)" + pending(6000) +
      R"(,"NodeNameToMetaVictims":{"gpu-a":{"Pods":[{"UID":"uid-mid"}],"NumPDBViolations":2}}})";
  const auto r = extender::preemption_reply(*env.scheduler, body);
  EXPECT_EQ(r.body, R"({"NodeNameToMetaVictims":{"gpu-a":{"Pods":[{"UID":"uid-mid"}],)"
                    R"("NumPDBViolations":2}}})");
}

TEST_F(PreemptCluster, FullFormIsAnsweredInTheMetaForm) {
  const std::string body =
      R"({"Pod":)" + pending(6000) +
      R"(,"NodeNameToVictims":{"gpu-a":{"Pods":[{"metadata":{"uid":"uid-cpu-hog"},)"
      R"("spec":{"priority":10}}],"NumPDBViolations":0}},"NodeNameToMetaVictims":null})";
  const auto r = extender::preemption_reply(*env.scheduler, body);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"NodeNameToMetaVictims":{"gpu-a":{"Pods":[{"UID":"uid-cpu-hog"},)"
                    R"({"UID":"uid-low-0"}],"NumPDBViolations":0}}})");
}

TEST_F(PreemptCluster, UnknownVictimIsKeptLastAndUnregisteredNodesDropped) {
  const std::string body = R"({"Pod":)" + pending(6000) +
                           R"(,"NodeNameToMetaVictims":{"gpu-a":{"Pods":[{"UID":"uid-gone"}]},)"
                           R"("cpu-0":{"Pods":[{"UID":"uid-x"}]}}})";
  const auto outcome = env.scheduler->preempt(pod_from_json(pending(6000)),
                                              extender::decode_preemption_args(body).candidates);
  ASSERT_EQ(outcome.nodes.size(), 1u);
  EXPECT_EQ(outcome.nodes[0].uids, (std::vector<std::string>{"uid-low-0", "uid-gone"}));
  EXPECT_EQ(outcome.dropped.at("cpu-0"), "node unregistered");
}

TEST_F(PreemptCluster, PodWithoutManagedResourcesKeepsTheProposal) {
  const std::string plain =
      R"({"metadata":{"name":"plain","namespace":"ml","uid":"u"},"spec":{"priority":5,)"
      R"("containers":[{"name":"c"}]}})";
  const auto r = extender::preemption_reply(
      *env.scheduler,
      R"({"Pod":)" + plain + R"(,"NodeNameToMetaVictims":{"x":{"Pods":[{"UID":"v"}]}}})");
  EXPECT_EQ(r.body,
            R"({"NodeNameToMetaVictims":{"x":{"Pods":[{"UID":"v"}],"NumPDBViolations":0}}})");
}

TEST_F(PreemptCluster, BadBodiesAreHttpErrors) {
  EXPECT_EQ(extender::preemption_reply(*env.scheduler, "").status, 400);
  const auto missing = extender::preemption_reply(*env.scheduler, R"({"Pod":null})");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.body, R"({"error":"preemption args missing pod"})");
  const auto bad_pod =
      extender::preemption_reply(*env.scheduler, R"({"Pod":{"spec":{"containers":{}}}})");
  EXPECT_EQ(bad_pod.status, 400);
  EXPECT_EQ(bad_pod.body,
            R"({"error":"invalid Pod: /spec/containers: expected an array, got an object"})");
}

TEST(PreemptQuota, VictimsOfThePodsNamespaceFreeItsQuota) {
  // ml may use 8000 MiB and q-low holds 6000 of it; o-low (another
  // namespace, started later, so ranked first) frees device memory but no
  // quota. The pending pod's 4000 MiB fit GPU 1 as it is: only the quota
  // stands in the way.
  SchedulingEnv env("kind: List\nitems:\n" + nvidia_node("gpu-q", 2, 8000) +
                    "- kind: ResourceQuota\n  metadata: {name: q, namespace: ml}\n"
                    "  spec: {hard: {limits.nvidia.com/gpumem: \"8000\"}}\n");
  add(env, running_pod("q-low", "uid-q-low", "gpu-q", 0, "2025-01-01T00:00:00Z",
                       "GPU-gpu-q-0,NVIDIA,6000,0:;"));
  std::string other = running_pod("o-low", "uid-o-low", "gpu-q", 0, "2025-01-02T00:00:00Z",
                                  "GPU-gpu-q-1,NVIDIA,1000,0:;");
  other.replace(other.find(R"("namespace":"ml")"), 16, R"("namespace":"other")");
  add(env, other);
  add(env, running_pod("hog", "uid-hog", "gpu-q", 5, "2025-01-03T00:00:00Z", ""));
  const std::string body =
      R"({"Pod":)" + pending(4000) +
      R"(,"NodeNameToMetaVictims":{"gpu-q":{"Pods":[{"UID":"uid-hog"}],"NumPDBViolations":0}}})";
  const auto r = extender::preemption_reply(*env.scheduler, body);
  EXPECT_EQ(r.body, R"({"NodeNameToMetaVictims":{"gpu-q":{"Pods":[{"UID":"uid-hog"},)"
                    R"({"UID":"uid-q-low"}],"NumPDBViolations":0}}})");
}

TEST(PreemptGate, ClosedGateIsAServerError) {
  scheduling::SchedulerOptions options;
  options.gate = [] { return std::string("not the leader: follower"); };
  SchedulingEnv env("kind: List\nitems:\n" + nvidia_node("gpu-a", 1, 8000), std::move(options));
  const auto r = extender::preemption_reply(*env.scheduler, meta_args(1000));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, R"({"error":"not the leader: follower"})");
}

#ifdef HAMI_HAVE_SERVER_TEST_SUPPORT
struct PreemptionHttps : PreemptCluster {
  std::shared_ptr<server::Router> router = [this] {
    auto r = std::make_shared<server::Router>();
    extender::register_extender_routes(*r, *env.scheduler, 1 << 20);
    return r;
  }();
  test::RunningServer server{router};
  test::SslCtxPtr ctx = test::make_client_ctx({});
};

TEST_F(PreemptionHttps, AnswersTheVerbAsKubeSchedulerSendsIt) {
  // As kube-scheduler's HTTPExtender marshals it for a nodeCacheCapable
  // extender: the full map null, the meta map filled.
  const auto r =
      test::json_request(ctx.get(), server.port(), "POST", "/preemption", meta_args(6000));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"NodeNameToMetaVictims":{"gpu-a":{"Pods":[{"UID":"uid-cpu-hog"},)"
                    R"({"UID":"uid-low-0"}],"NumPDBViolations":0}}})");
  const auto bad = test::json_request(ctx.get(), server.port(), "POST", "/preemption", "[]");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(
      bad.body,
      R"({"error":"json: cannot unmarshal array into Go value of type v1.ExtenderPreemptionArgs"})");
  const auto get = test::json_request(ctx.get(), server.port(), "GET", "/preemption", "");
  EXPECT_EQ(get.status, 405);
}
#endif

}  // namespace
