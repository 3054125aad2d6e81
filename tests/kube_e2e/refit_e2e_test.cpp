// The NUMA refit end to end against the fake API server over HTTPS: a GPU
// pod asking for strict NUMA alignment goes webhook → filter → bind, then
// the node-side plugin's POST /refit (on the webhook listener) moves its
// container to the device the Topology Manager allows. The stored pod's
// allocation annotations change exactly, in one conditional patch, and the
// host's ledger follows.

#include "host_fixture.hpp"

namespace hami::e2e {
namespace {

struct RefitE2E : HostFixture {
  RefitE2E() {
    fake.apply(namespace_object("ml"));
    fake.apply(gpu_node("gpu-a", 2));
    start_host();
  }
};

TEST_F(RefitE2E, RefitMovesTheBoundContainer) {
  const uint16_t webhook = host->server().port();
  const uint16_t extender = host->extender_server().port();
  ASSERT_TRUE(eventually([&] { return call(webhook, "GET", "/readyz").status == 200; }));

  json pod = gpu_pod("ml", "train", "", 3000, 30);
  pod["metadata"]["annotations"] = {{"hami.io/numa-alignment", "strict"}};
  pod["spec"].erase("schedulerName");
  const json review = admission_review(pod, "review-train", "ml");
  const auto admitted = call(webhook, "POST", "/mutate-pod", review.dump());
  const json reply = json::parse(admitted.body);
  ASSERT_TRUE(reply["response"]["allowed"].get<bool>()) << admitted.body;
  pod = pod.patch(json::parse(decode_base64(reply["response"]["patch"].get<std::string>())));
  fake.apply(pod.dump());
  const json created = stored(fake, "Pod", "ml", "train");
  const std::string uid = created["metadata"]["uid"];
  auto& stack = host->extender();
  ASSERT_TRUE(eventually([&] { return stack.cluster->pod("ml", "train") != nullptr; }));
  ASSERT_TRUE(eventually([&] { return stack.gate().empty(); })) << stack.gate();

  const auto filtered =
      call(extender, "POST", "/filter", json{{"Pod", created}, {"NodeNames", {"gpu-a"}}}.dump());
  ASSERT_EQ(json::parse(filtered.body)["Error"], "") << filtered.body;
  const auto bound =
      call(extender, "POST", "/bind",
           json{{"PodName", "train"}, {"PodNamespace", "ml"}, {"PodUID", uid}, {"Node", "gpu-a"}}
               .dump());
  ASSERT_EQ(bound.body, R"({"Error":""})");
  const json before = stored(fake, "Pod", "ml", "train");
  const std::string chosen = annotation(before, "hami.io/vgpu-devices-allocated");
  ASSERT_TRUE(chosen == "GPU-gpu-a-0,NVIDIA,3000,30:;" || chosen == "GPU-gpu-a-1,NVIDIA,3000,30:;")
      << chosen;
  const std::string other = chosen.starts_with("GPU-gpu-a-0") ? "GPU-gpu-a-1" : "GPU-gpu-a-0";
  // The host's cache shows the bound pod allocating.
  ASSERT_TRUE(eventually([&] {
    const auto p = stack.cluster->pod("ml", "train");
    return p &&
           p->annotation("hami.io/bind-phase") == std::optional<std::string_view>("allocating");
  }));

  // The node-side plugin: the Topology Manager allows only the other GPU.
  const json refit = {{"podUID", uid},          {"podNamespace", "ml"},
                      {"podName", "train"},     {"nodeName", "gpu-a"},
                      {"containerIndex", 0},    {"containerName", "main"},
                      {"deviceType", "NVIDIA"}, {"allowedDeviceUUIDs", {other, "GPU-elsewhere"}}};
  const size_t requests_before = fake.requests().size();
  const auto answer = call(webhook, "POST", "/refit", refit.dump());
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.body, R"({"succeeded":true,"containerDevices":")" + other +
                             R"(,NVIDIA,3000,30:","failureReason":""})");
  // The extender listener does not serve it.
  EXPECT_EQ(call(extender, "POST", "/refit", refit.dump()).status, 404);

  const json after = stored(fake, "Pod", "ml", "train");
  const std::string moved = other + ",NVIDIA,3000,30:;";
  EXPECT_EQ(annotation(after, "hami.io/vgpu-devices-allocated"), moved);
  EXPECT_EQ(annotation(after, "hami.io/vgpu-devices-to-allocate"), moved);
  // Every other annotation is as bind left it.
  json expected = before["metadata"]["annotations"];
  expected["hami.io/vgpu-devices-allocated"] = moved;
  expected["hami.io/vgpu-devices-to-allocate"] = moved;
  EXPECT_EQ(after["metadata"]["annotations"], expected);
  EXPECT_EQ(after["spec"]["nodeName"], "gpu-a");

  // One pod write: a JSON patch whose tests pin the uid and the version the
  // refit judged, then the two annotations.
  int patches = 0;
  const auto requests = fake.requests();
  for (size_t i = requests_before; i < requests.size(); ++i) {
    const auto& r = requests[i];
    if (r.method != "PATCH" || r.path != "/api/v1/namespaces/ml/pods/train")
      continue;
    ++patches;
    EXPECT_EQ(json::parse(r.body),
              json::array({{{"op", "test"}, {"path", "/metadata/uid"}, {"value", uid}},
                           {{"op", "test"},
                            {"path", "/metadata/resourceVersion"},
                            {"value", before["metadata"]["resourceVersion"]}},
                           {{"op", "add"},
                            {"path", "/metadata/annotations/hami.io~1vgpu-devices-to-allocate"},
                            {"value", moved}},
                           {{"op", "add"},
                            {"path", "/metadata/annotations/hami.io~1vgpu-devices-allocated"},
                            {"value", moved}}}))
        << r.body;
  }
  EXPECT_EQ(patches, 1);

  // The ledger charges the new device, and only it.
  ASSERT_TRUE(eventually([&] {
    const auto snapshot = stack.scheduler->ledger().read();
    const auto* charge = snapshot->pod(uid);
    return charge != nullptr && !charge->reservation && charge->devices.size() == 1 &&
           charge->devices[0].device_id == other && charge->held_devices.empty();
  }));
  EXPECT_NE(log_sink.str().find("NUMA refit moved container 0 from [" +
                                chosen.substr(0, chosen.find(',')) + "] to [" + other + "]"),
            std::string::npos)
      << log_sink.str();
}

}  // namespace
}  // namespace hami::e2e
