// The extender routes over real HTTPS (loopback, ephemeral port).
#ifdef HAMI_HAVE_SERVER_TEST_SUPPORT

#include <gtest/gtest.h>

#include "extender/extender_service.hpp"
#include "scheduling_env.hpp"
#include "server/router.hpp"
#include "test_support.hpp"

namespace {

using namespace hami;
using namespace hami::testing;

struct HttpsRoutes : ::testing::Test {
  SchedulingEnv env{"kind: List\nitems:\n" + nvidia_node("gpu-a", 2, 8000)};
  std::shared_ptr<server::Router> router = [this] {
    auto r = std::make_shared<server::Router>();
    extender::register_extender_routes(*r, *env.scheduler, 4096);
    return r;
  }();
  test::RunningServer server{router};
  test::SslCtxPtr ctx = test::make_client_ctx({});

  test::ParsedResponse post(const std::string& path, const std::string& body,
                            const std::string& method = "POST") {
    return test::json_request(ctx.get(), server.port(), method, path, body);
  }
};

const std::string kPod = pod_json("ml", "train", "uid-train",
                                  {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "3000"}}});

TEST_F(HttpsRoutes, FilterAndScheduleAlias) {
  for (const char* path : {"/filter", "/schedule", "/filter?timeout=5s"}) {
    const auto r = post(path, R"({"Pod":)" + kPod + R"(,"NodeNames":["gpu-a","gpu-z"]})");
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.header("content-type"), "application/json");
    EXPECT_EQ(r.body, R"({"Nodes":null,"NodeNames":["gpu-a"],"FailedNodes":null,)"
                      R"("FailedAndUnresolvableNodes":{"gpu-z":"node unregistered"},"Error":""})");
  }
}

TEST_F(HttpsRoutes, PrioritizeAndBind) {
  const auto p = post("/prioritize", R"({"Pod":)" + kPod + R"(,"NodeNames":["gpu-a"]})");
  EXPECT_EQ(p.status, 200);
  EXPECT_EQ(p.body, R"([{"Host":"gpu-a","Score":0}])");
  rapidjson::Document doc;
  doc.Parse(kPod.c_str());
  env.cluster->upsert(doc);
  const auto b = post(
      "/bind", R"({"PodName":"train","PodNamespace":"ml","PodUID":"uid-train","Node":"gpu-a"})");
  EXPECT_EQ(b.status, 200);
  EXPECT_EQ(b.body, R"({"Error":""})");
  EXPECT_EQ(env.cluster->pod("ml", "train")->node_name, "gpu-a");
}

TEST_F(HttpsRoutes, FullNodesReplyEchoesTheBodyTheHandlerTook) {
  // The reply's nodes are views into the request body the handler took;
  // the server writes them after the handler has returned.
  const std::string fit =
      R"({"metadata":{"name":"gpu-a","annotations":{"hami.io/node-nvidia-register":)"
      R"("[{\"id\":\"GPU-a\",\"count\":10,\"devmem\":8000,\"devcore\":100,\"type\":\"NVIDIA T4\",\"health\":true}]"}},)"
      R"("status":{"images":[{"names":["x"]}]}})";
  const std::string other = R"({"metadata":{"name":"gpu-z"}})";
  const std::string body = R"({"Pod":)" + kPod + R"(,"Nodes":{"items":[)" + other + "," + fit +
                           "," + fit + R"(]},"NodeNames":null})";
  for (int i = 0; i < 3; ++i) {
    const auto r = post("/filter", body);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, R"({"Nodes":{"metadata":{},"items":[)" + fit + "," + fit +
                          R"(]},"NodeNames":null,"FailedNodes":null,)"
                          R"("FailedAndUnresolvableNodes":{"gpu-z":"node unregistered"},)"
                          R"("Error":""})");
  }
}

TEST_F(HttpsRoutes, WrongMethodAndOversizedBody) {
  const auto get = post("/filter", "", "GET");
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.header("allow"), "POST");
  const auto big = post("/filter", std::string(5000, ' '));
  EXPECT_EQ(big.status, 413);
}

}  // namespace

#endif  // HAMI_HAVE_SERVER_TEST_SUPPORT
