// A MIG pod end to end against the fake API server over HTTPS: webhook →
// filter → bind on a node whose A100 is in MIG mode, ending with the
// annotations HAMi's NVIDIA device plugin reads (§4.1, §4.3): the device
// string at the profile's memory and cores, and the MIG reservation. A
// second pod then gets the next free placement, from the reservation the
// host read back from the API server.
#include "host_fixture.hpp"

namespace hami::e2e {
namespace {

// One A100-SXM4-40GB in MIG mode with the 1g.5gb and 2g.10gb profiles, as
// HAMi's device plugin registers it.
std::string mig_node(std::string_view name) {
  const json profiles = json::array({{{"name", "1g.5gb"},
                                      {"memoryMB", 4864},
                                      {"core", 14},
                                      {"sliceCount", 1},
                                      {"placements", json::array({{{"start", 0}, {"size", 1}},
                                                                  {{"start", 1}, {"size", 1}},
                                                                  {{"start", 2}, {"size", 1}},
                                                                  {{"start", 3}, {"size", 1}},
                                                                  {{"start", 4}, {"size", 1}},
                                                                  {{"start", 5}, {"size", 1}},
                                                                  {{"start", 6}, {"size", 1}}})}},
                                     {{"name", "2g.10gb"},
                                      {"memoryMB", 9856},
                                      {"core", 28},
                                      {"sliceCount", 2},
                                      {"placements", json::array({{{"start", 0}, {"size", 2}},
                                                                  {{"start", 2}, {"size", 2}},
                                                                  {{"start", 4}, {"size", 2}}})}}});
  const json reg = json::array({{{"id", gpu_id(name, 0)},
                                 {"count", 7},
                                 {"devmem", 40960},
                                 {"devcore", 100},
                                 {"type", "NVIDIA A100-SXM4-40GB"},
                                 {"mode", "mig"},
                                 {"health", true},
                                 {"migProfiles", profiles}}});
  const json node = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       {{"name", name},
        {"labels", {{"kubernetes.io/hostname", name}}},
        {"annotations", {{"hami.io/node-nvidia-register", reg.dump()}}}}},
      {"status",
       {{"capacity", {{"nvidia.com/gpu", "7"}}}, {"allocatable", {{"nvidia.com/gpu", "7"}}}}}};
  return node.dump();
}

struct MigE2E : HostFixture {
  MigE2E() {
    fake.apply(namespace_object("ml"));
    fake.apply(gpu_node("gpu-a", 1));
    fake.apply(mig_node("gpu-mig"));
    start_host();
  }

  // Admits, stores, filters and binds a MIG pod; returns the stored pod.
  json schedule(const std::string& name) {
    json pod = gpu_pod("ml", name, "", 9000, 0);
    pod["metadata"]["annotations"] = {{"nvidia.com/vgpu-mode", "mig"}};
    pod["spec"].erase("schedulerName");
    const json review = admission_review(pod, "review-" + name, "ml");
    const auto admitted = call(host->server().port(), "POST", "/mutate-pod", review.dump());
    EXPECT_EQ(admitted.status, 200);
    EXPECT_TRUE(json::parse(admitted.body)["response"]["allowed"].get<bool>()) << admitted.body;
    pod["spec"]["schedulerName"] = "hami-scheduler";
    fake.apply(pod.dump());
    const json created = stored(fake, "Pod", "ml", name);
    auto& stack = host->extender();
    EXPECT_TRUE(eventually([&] { return stack.cluster->pod("ml", name) != nullptr; }));
    EXPECT_TRUE(eventually([&] { return stack.gate().empty(); })) << stack.gate();

    const json filter_args = {{"Pod", created}, {"NodeNames", json::array({"gpu-a", "gpu-mig"})}};
    const auto filtered =
        call(host->extender_server().port(), "POST", "/filter", filter_args.dump());
    EXPECT_EQ(filtered.status, 200);
    const json result = json::parse(filtered.body);
    EXPECT_EQ(result["NodeNames"], json::array({"gpu-mig"})) << filtered.body;
    EXPECT_EQ(result["FailedNodes"], json({{"gpu-a", "1/1 CardTypeMismatch"}})) << filtered.body;

    const json bind_args = {{"PodName", name},
                            {"PodNamespace", "ml"},
                            {"PodUID", created["metadata"]["uid"]},
                            {"Node", "gpu-mig"}};
    const auto bound = call(host->extender_server().port(), "POST", "/bind", bind_args.dump());
    EXPECT_EQ(bound.body, R"({"Error":""})");
    return stored(fake, "Pod", "ml", name);
  }

  // What HAMi's device plugin does once it served the pod: the instance's
  // runtime identity, bind-phase success, the node lock released.
  void device_plugin_served(const std::string& name, const std::string& mig_json) {
    json pod = stored(fake, "Pod", "ml", name);
    pod["metadata"]["annotations"]["hami.io/vgpu-mig-allocations"] = mig_json;
    pod["metadata"]["annotations"]["hami.io/bind-phase"] = "success";
    pod["metadata"]["annotations"]["hami.io/vgpu-devices-to-allocate"] = ";";
    pod["status"]["phase"] = "Running";
    fake.apply(pod.dump());
    json node = stored(fake, "Node", "", "gpu-mig");
    node["metadata"]["annotations"].erase("hami.io/mutex.lock");
    fake.apply(node.dump());
  }
};

TEST_F(MigE2E, MigPodsGoWebhookFilterBindOntoSeparatePlacements) {
  ASSERT_TRUE(
      eventually([&] { return call(host->server().port(), "GET", "/readyz").status == 200; }));

  const json first = schedule("embed-0");
  EXPECT_EQ(first["spec"]["nodeName"], "gpu-mig");
  EXPECT_EQ(annotation(first, "hami.io/vgpu-devices-allocated"), "GPU-gpu-mig-0,NVIDIA,9856,28:;");
  EXPECT_EQ(annotation(first, "hami.io/vgpu-devices-to-allocate"),
            "GPU-gpu-mig-0,NVIDIA,9856,28:;");
  const std::string reservation =
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-gpu-mig-0","profile":"2g.10gb","placement":{"start":0,"size":2}}])";
  EXPECT_EQ(annotation(first, "hami.io/vgpu-mig-allocations"), reservation);
  EXPECT_EQ(annotation(first, "hami.io/bind-phase"), "allocating");

  device_plugin_served(
      "embed-0",
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-gpu-mig-0","profile":"2g.10gb","placement":{"start":0,"size":2},"migUUID":"MIG-1b2c3d4e-0000-5000-8000-000000000001","gpuInstanceID":5,"computeInstanceID":0}])");
  auto& stack = host->extender();
  ASSERT_TRUE(eventually([&] {
    const auto pod = stack.cluster->pod("ml", "embed-0");
    return pod && pod->phase == "Running";
  }));
  ASSERT_TRUE(eventually([&] {
    const auto node = stack.cluster->node("gpu-mig");
    if (!node)
      return false;
    for (const hami_kv& kv : node->annotations()) {
      if (std::string_view(kv.key.ptr, kv.key.len) == "hami.io/mutex.lock")
        return false;
    }
    return true;
  }));

  // The second pod: 2g.10gb again, on the next placement, since the host
  // holds the first pod's from its annotations.
  const json second = schedule("embed-1");
  EXPECT_EQ(
      annotation(second, "hami.io/vgpu-mig-allocations"),
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-gpu-mig-0","profile":"2g.10gb","placement":{"start":2,"size":2}}])");
}

}  // namespace
}  // namespace hami::e2e
