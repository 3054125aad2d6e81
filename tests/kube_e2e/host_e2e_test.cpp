// The whole host against the fake API server over HTTPS: a GPU pod goes
// webhook (mutate) → filter → bind and ends with the annotations, node lock
// and Binding HAMi's device plugin expects (HAMi reference §4, §6.3); an
// unreachable API server leaves the host serving with /readyz 503 and a
// clear filter/bind error.
#include <regex>

#include "host_fixture.hpp"

namespace hami::e2e {
namespace {

struct HostE2E : HostFixture {
  HostE2E() {
    fake.apply(namespace_object("ml"));
    fake.apply(gpu_node("gpu-a", 2));
    fake.apply(gpu_node("gpu-b", 2));
    fake.apply(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"cpu-0"}})");
  }

  // A request on the webhook listener (call) or the extender listener
  // (call_extender), as the API server and kube-scheduler reach them.
  using HostFixture::call;
  test::ParsedResponse call(const std::string& method, const std::string& path,
                            const std::string& body = "") {
    return call(host->server().port(), method, path, body);
  }
  test::ParsedResponse call_extender(const std::string& method, const std::string& path,
                                     const std::string& body = "") {
    return call(host->extender_server().port(), method, path, body);
  }
};

TEST_F(HostE2E, GpuPodGoesWebhookFilterBind) {
  start_host();
  ASSERT_TRUE(eventually([&] { return call("GET", "/readyz").status == 200; }))
      << call("GET", "/readyz").body;

  // 1. Webhook: the API server sends the pod for admission.
  json pod = gpu_pod("ml", "train", "", 3000, 30);
  pod["spec"].erase("schedulerName");
  const json review = admission_review(pod, "7f0b2d4e-review", "ml");
  const auto admitted = call("POST", "/mutate-pod", review.dump());
  ASSERT_EQ(admitted.status, 200);
  const json reply = json::parse(admitted.body);
  ASSERT_TRUE(reply["response"]["allowed"].get<bool>()) << admitted.body;
  EXPECT_EQ(reply["response"]["uid"], "7f0b2d4e-review");
  const json patch = json::parse(decode_base64(reply["response"]["patch"].get<std::string>()));
  pod = pod.patch(patch);
  EXPECT_EQ(pod["spec"]["schedulerName"], "hami-scheduler");

  // The API server stores the mutated pod; the host's cache sees it.
  fake.apply(pod.dump());
  const json created = stored(fake, "Pod", "ml", "train");
  const std::string uid = created["metadata"]["uid"];
  ASSERT_FALSE(uid.empty());
  auto& stack = host->extender();
  ASSERT_TRUE(eventually([&] { return stack.cluster->pod("ml", "train") != nullptr; }));
  // The first registration pass of the leadership term is done.
  ASSERT_TRUE(eventually([&] { return stack.gate().empty(); })) << stack.gate();

  // 2. Filter (NodeNames, nodeCacheCapable) as kube-scheduler sends it.
  const json filter_args = {{"Pod", created},
                            {"NodeNames", json::array({"gpu-a", "gpu-b", "cpu-0"})}};
  const auto filtered = call_extender("POST", "/filter", filter_args.dump());
  ASSERT_EQ(filtered.status, 200);
  const json result = json::parse(filtered.body);
  EXPECT_EQ(result["Error"], "") << filtered.body;
  EXPECT_EQ(result["NodeNames"], json::array({"gpu-a", "gpu-b"})) << filtered.body;
  EXPECT_EQ(result["FailedAndUnresolvableNodes"], json({{"cpu-0", "node unregistered"}}));

  // 3. Bind to the node kube-scheduler chose.
  const json bind_args = {
      {"PodName", "train"}, {"PodNamespace", "ml"}, {"PodUID", uid}, {"Node", "gpu-b"}};
  const auto bound = call_extender("POST", "/bind", bind_args.dump());
  ASSERT_EQ(bound.status, 200);
  EXPECT_EQ(bound.body, R"({"Error":""})");

  // What the node-side device plugin reads (§4.1, §6.3), on the API server.
  const json after = stored(fake, "Pod", "ml", "train");
  EXPECT_EQ(after["spec"]["nodeName"], "gpu-b");
  EXPECT_EQ(annotation(after, "hami.io/vgpu-node"), "gpu-b");
  EXPECT_EQ(after["metadata"]["labels"]["hami.io/vgpu-node"], "gpu-b");
  const std::string allocated = annotation(after, "hami.io/vgpu-devices-allocated");
  EXPECT_TRUE(allocated == "GPU-gpu-b-0,NVIDIA,3000,30:;" ||
              allocated == "GPU-gpu-b-1,NVIDIA,3000,30:;")
      << allocated;
  EXPECT_EQ(annotation(after, "hami.io/vgpu-devices-to-allocate"), allocated);
  EXPECT_EQ(annotation(after, "hami.io/bind-phase"), "allocating");
  const std::string bind_time = annotation(after, "hami.io/bind-time");
  EXPECT_TRUE(std::regex_match(bind_time, std::regex("[0-9]{10}"))) << bind_time;
  EXPECT_EQ(annotation(after, "hami.io/vgpu-time"), bind_time);
  const json node = stored(fake, "Node", "", "gpu-b");
  const std::string lock = annotation(node, "hami.io/mutex.lock");
  EXPECT_TRUE(std::regex_match(
      lock, std::regex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z,ml,train")))
      << lock;
  EXPECT_EQ(annotation(stored(fake, "Node", "", "gpu-a"), "hami.io/mutex.lock"), "<none>");

  // The Binding went to the binding subresource with the uid precondition.
  bool binding_seen = false;
  for (const auto& r : fake.requests()) {
    if (r.method == "POST" && r.path == "/api/v1/namespaces/ml/pods/train/binding") {
      const json body = json::parse(r.body);
      EXPECT_EQ(body["metadata"]["uid"], uid);
      EXPECT_EQ(body["target"]["name"], "gpu-b");
      EXPECT_EQ(r.status, 201);
      binding_seen = true;
    }
  }
  EXPECT_TRUE(binding_seen);
  // The registration loop stamped the handshake on the GPU nodes only.
  ASSERT_TRUE(eventually([&] {
    return annotation(stored(fake, "Node", "", "gpu-a"), "hami.io/node-handshake") != "<none>";
  }));
  EXPECT_EQ(annotation(stored(fake, "Node", "", "cpu-0"), "hami.io/node-handshake"), "<none>");
}

TEST_F(HostE2E, UnreachableApiServerHostServesAndSaysWhy) {
  fake.set_refusing(true);
  start_host();
  // The host serves at once; readiness names the cache's problem.
  ASSERT_TRUE(eventually([&] {
    return call("GET", "/readyz").body.find("not synced: ") != std::string::npos;
  })) << call("GET", "/readyz").body;
  const auto ready = call("GET", "/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_NE(ready.body.find("cluster: not synced: "), std::string::npos) << ready.body;
  EXPECT_EQ(call("GET", "/healthz").status, 200);
  // Leader (election off), not synced.
  const std::string scrape = call("GET", "/metrics").body;
  EXPECT_NE(scrape.find("\n# TYPE hami_scheduler_is_leader gauge\nhami_scheduler_is_leader 1\n"),
            std::string::npos)
      << scrape;
  EXPECT_NE(
      scrape.find("\n# TYPE hami_scheduler_cache_synced gauge\nhami_scheduler_cache_synced 0\n"),
      std::string::npos)
      << scrape;

  const json pod = gpu_pod("ml", "train", "uid-1", 3000, 0);
  const auto filtered =
      call_extender("POST", "/filter", json{{"Pod", pod}, {"NodeNames", {"gpu-a"}}}.dump());
  const std::string error = json::parse(filtered.body)["Error"];
  EXPECT_EQ(error.rfind("cluster cache not synced: ", 0), 0u) << error;
  const auto bound = call_extender(
      "POST", "/bind",
      json{{"PodName", "train"}, {"PodNamespace", "ml"}, {"PodUID", "uid-1"}, {"Node", "gpu-a"}}
          .dump());
  EXPECT_EQ(
      json::parse(bound.body)["Error"].get<std::string>().rfind("cluster cache not synced: ", 0),
      0u)
      << bound.body;

  // The server comes back: the caches sync and the host becomes ready.
  fake.set_refusing(false);
  ASSERT_TRUE(eventually([&] { return call("GET", "/readyz").status == 200; }, 20s))
      << call("GET", "/readyz").body;
  EXPECT_NE(log_sink.str().find("cluster cache synced"), std::string::npos);
  ASSERT_TRUE(eventually([&] {
    return call("GET", "/metrics").body.find("\nhami_scheduler_cache_synced 1\n") !=
           std::string::npos;
  })) << call("GET", "/metrics").body;
}

}  // namespace
}  // namespace hami::e2e
