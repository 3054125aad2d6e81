// POST /refit: the request decoder, the reply bytes, and the route over real
// HTTPS moving a container's device (the rules themselves are tested in
// tests/scheduling/refit_test.cpp).
#include "extender/refit_route.hpp"

#include <gtest/gtest.h>

#include "extender/go_json.hpp"
#include "scheduling_env.hpp"
#include "server/router.hpp"
#ifdef HAMI_HAVE_SERVER_TEST_SUPPORT
#include "test_support.hpp"
#endif

namespace {

using namespace hami;
using namespace hami::testing;

// gpu-a: GPU-gpu-a-0/1 on NUMA 0, 2/3 on NUMA 1; pod ml/p allocating with
// GPU-gpu-a-0.
const std::string kCluster =
    "kind: List\nitems:\n" + nvidia_node("gpu-a", 4, 8000) +
    "- kind: Pod\n  metadata:\n    name: p\n    namespace: ml\n    uid: uid-p\n"
    "    annotations:\n      hami.io/vgpu-node: gpu-a\n      hami.io/bind-phase: allocating\n"
    "      hami.io/vgpu-devices-to-allocate: \"GPU-gpu-a-0,NVIDIA,3000,0:;\"\n"
    "      hami.io/vgpu-devices-allocated: \"GPU-gpu-a-0,NVIDIA,3000,0:;\"\n"
    "  spec:\n    nodeName: gpu-a\n    schedulerName: hami-scheduler\n"
    "    containers: [{name: c0, resources: {limits: {nvidia.com/gpu: \"1\", "
    "nvidia.com/gpumem: \"3000\"}}}]\n  status: {phase: Pending}\n";

const std::string kRequest =
    R"({"podUID":"uid-p","podNamespace":"ml","podName":"p","nodeName":"gpu-a",)"
    R"("containerIndex":0,"containerName":"c0","deviceType":"NVIDIA",)"
    R"("allowedDeviceUUIDs":["GPU-gpu-a-2","GPU-gpu-a-3"]})";

TEST(RefitCodec, DecodesEveryFieldAsGoDoes) {
  const auto r = extender::decode_refit_request(
      R"({"PODUID":"u","podnamespace":"ns","podName":"n","nodeName":"node","containerIndex":3,)"
      R"("containerName":"c","deviceType":"NVIDIA","allowedDeviceUUIDs":["a",null,"b"],"x":1})");
  EXPECT_EQ(r.pod_uid, "u");
  EXPECT_EQ(r.pod_namespace, "ns");
  EXPECT_EQ(r.pod_name, "n");
  EXPECT_EQ(r.node_name, "node");
  EXPECT_EQ(r.container_index, 3);
  EXPECT_EQ(r.container_name, "c");
  EXPECT_EQ(r.device_type, "NVIDIA");
  EXPECT_EQ(r.allowed_device_uuids, (std::vector<std::string>{"a", "", "b"}));
}

TEST(RefitCodec, RefusesWhatIsNotARefitRequest) {
  const auto error = [](std::string_view body) {
    try {
      extender::decode_refit_request(body);
      return std::string("decoded");
    } catch (const extender::DecodeError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(error("[]"),
            "json: cannot unmarshal array into Go value of type scheduler.RefitRequest");
  EXPECT_EQ(error(R"({"containerIndex":"1"})"),
            "json: cannot unmarshal string into Go struct field RefitRequest.containerIndex of "
            "type int");
  EXPECT_EQ(error(R"({"containerIndex":1.5})"),
            "json: cannot unmarshal number into Go struct field RefitRequest.containerIndex of "
            "type int");
  EXPECT_EQ(error(R"({"allowedDeviceUUIDs":"GPU-a"})"),
            "json: cannot unmarshal string into Go struct field RefitRequest.allowedDeviceUUIDs "
            "of type []string");
  EXPECT_EQ(error(R"({"allowedDeviceUUIDs":[1]})"),
            "json: cannot unmarshal number into Go struct field RefitRequest.allowedDeviceUUIDs "
            "of type string");
  EXPECT_EQ(error("{"), "invalid JSON at offset 1: Missing a name for object member.");
}

TEST(RefitCodec, EncodesAllThreeFields) {
  EXPECT_EQ(extender::encode_refit_result({true, "GPU-a,NVIDIA,1,0:", ""}),
            R"({"succeeded":true,"containerDevices":"GPU-a,NVIDIA,1,0:","failureReason":""})");
  EXPECT_EQ(
      extender::encode_refit_result({false, "", "unknown device type \"x\""}),
      R"({"succeeded":false,"containerDevices":"","failureReason":"unknown device type \"x\""})");
}

TEST(RefitReply, RefusesOtherMediaTypesAndEmptyBodiesInBand) {
  SchedulingEnv env(kCluster);
  EXPECT_EQ(extender::refit_reply(*env.scheduler, "text/plain", kRequest),
            R"({"succeeded":false,"containerDevices":"","failureReason":)"
            R"("Content-Type \"text/plain\" is not application/json"})");
  EXPECT_EQ(extender::refit_reply(*env.scheduler, "application/json", ""),
            R"({"succeeded":false,"containerDevices":"","failureReason":)"
            R"("invalid refit request: empty request body"})");
  EXPECT_EQ(extender::refit_reply(*env.scheduler, "application/json; charset=utf-8", "[1]"),
            R"({"succeeded":false,"containerDevices":"","failureReason":)"
            R"("invalid refit request: json: cannot unmarshal array into Go value of type )"
            R"(scheduler.RefitRequest"})");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,3000,0:;");
}

#ifdef HAMI_HAVE_SERVER_TEST_SUPPORT

struct RefitRoute : ::testing::Test {
  SchedulingEnv env{kCluster};
  std::shared_ptr<server::Router> router = [this] {
    auto r = std::make_shared<server::Router>();
    extender::register_refit_route(*r, *env.scheduler, 4096);
    return r;
  }();
  test::RunningServer server{router};
  test::SslCtxPtr ctx = test::make_client_ctx({});

  test::ParsedResponse post(const std::string& body, const std::string& method = "POST") {
    return test::json_request(ctx.get(), server.port(), method, "/refit", body);
  }
};

TEST_F(RefitRoute, MovesTheContainerAndAnswersExactly) {
  // Both allowed devices are free: the pod's device policy (the default)
  // orders GPU-gpu-a-3 first.
  const auto r = post(kRequest);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(
      r.body,
      R"({"succeeded":true,"containerDevices":"GPU-gpu-a-3,NVIDIA,3000,0:","failureReason":""})");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-3,NVIDIA,3000,0:;");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-to-allocate"),
            "GPU-gpu-a-3,NVIDIA,3000,0:;");
  // Again: already on an allowed device, nothing changes.
  const auto again = post(kRequest);
  EXPECT_EQ(
      again.body,
      R"({"succeeded":true,"containerDevices":"GPU-gpu-a-3,NVIDIA,3000,0:","failureReason":""})");
}

TEST_F(RefitRoute, RefusalIsInBand) {
  const auto r = post(R"({"podUID":"uid-p","allowedDeviceUUIDs":["GPU-gpu-a-2"]})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            R"({"succeeded":false,"containerDevices":"","failureReason":)"
            R"("incomplete refit request: pod UID, namespace, name, and node are required"})");
}

TEST_F(RefitRoute, PostOnlyAndBodyLimit) {
  const auto get = post("", "GET");
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.header("allow"), "POST");
  EXPECT_EQ(post(std::string(5000, ' ')).status, 413);
}

#endif  // HAMI_HAVE_SERVER_TEST_SUPPORT

}  // namespace
