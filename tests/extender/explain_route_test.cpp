// POST /explain: the body decoder's refusals, the reply bytes, and the
// route over real HTTPS on the extender's routes.
#include "extender/explain_route.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "extender/extender_service.hpp"
#include "scheduling_env.hpp"
#include "server/router.hpp"
#ifdef HAMI_HAVE_SERVER_TEST_SUPPORT
#include "test_support.hpp"
#endif

namespace {

using namespace hami;
using namespace hami::testing;

const std::string kCluster = "kind: List\nitems:\n" + nvidia_node("gpu-a", 2, 8000);
const std::string kPod =
    pod_json("ml", "p", "uid-p", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "3000"}}});

std::string refusal(std::string_view body) {
  try {
    (void)extender::decode_explain_pod(body);
    return "decoded";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

TEST(ExplainRoute, DecoderRefusesWhatIsNotAPod) {
  EXPECT_EQ(refusal("{"), "invalid JSON at offset 1: Missing a name for object member.");
  EXPECT_EQ(refusal(""), "invalid JSON at offset 0: The document is empty.");
  EXPECT_EQ(refusal("[]"), "the body is not a Pod object");
  EXPECT_EQ(refusal(R"({"kind":"Node"})"), "the body is not a Pod object: kind is not \"Pod\"");
  EXPECT_EQ(refusal(R"({"kind":"Pod","spec":{"containers":{}}})"),
            "the Pod cannot be read: /spec/containers: expected an array, got an object");
  EXPECT_EQ(refusal(kPod), "decoded");
}

TEST(ExplainRoute, ReplyIsTheExplanationJson) {
  SchedulingEnv env(kCluster);
  const auto r = extender::explain_reply(*env.scheduler, kPod);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, scheduling::explanation_json(env.scheduler->explain(pod_from_json(kPod))));
  EXPECT_EQ(
      r.body,
      R"x({"pod":"ml/p","policies":{"node":"binpack","gpu":"spread"},)x"
      R"x("summary":"1 of 1 nodes fit; best gpu-a (score 0)","nodes":[{"name":"gpu-a","fits":true,)x"
      R"x("score":0,"rank":1,"chosen":["GPU-gpu-a-1"],"devices":[)x"
      R"x({"id":"GPU-gpu-a-0","index":0,"fits":true,"reason":"",)x"
      R"x("detail":"needs 3000 MiB, 8000 MiB free; needs 0 % cores, 100 % free"},)x"
      R"x({"id":"GPU-gpu-a-1","index":1,"fits":true,"reason":"",)x"
      R"x("detail":"needs 3000 MiB, 8000 MiB free; needs 0 % cores, 100 % free"}]}]})x");
  const auto bad = extender::explain_reply(*env.scheduler, "[]");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body, R"({"error":"the body is not a Pod object"})");
}

#ifdef HAMI_HAVE_SERVER_TEST_SUPPORT
struct ExplainHttps : ::testing::Test {
  SchedulingEnv env{kCluster};
  std::shared_ptr<server::Router> router = [this] {
    auto r = std::make_shared<server::Router>();
    extender::register_extender_routes(*r, *env.scheduler, 4096);
    return r;
  }();
  test::RunningServer server{router};
  test::SslCtxPtr ctx = test::make_client_ctx({});

  test::ParsedResponse post(const std::string& body, const std::string& method = "POST") {
    return test::json_request(ctx.get(), server.port(), method, "/explain", body);
  }
};

TEST_F(ExplainHttps, ExplainsOverHttpsOnTheExtenderRoutes) {
  const auto r = post(kPod);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.body, extender::explain_reply(*env.scheduler, kPod).body);
  const auto malformed = post(R"({"kind":"Pod","spec":)");
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(malformed.body, R"({"error":"invalid JSON at offset 21: Invalid value."})");
  EXPECT_EQ(post("", "GET").status, 405);
  EXPECT_EQ(post(std::string(5000, ' ')).status, 413);  // the extender's body limit
}
#endif

}  // namespace
