// The hami.io/vgpu-node label of a bind: written only when the node name
// is a valid label value. A node name over 63 characters would make the API
// server refuse the whole allocation patch (422), and every bind to that
// node fail; the annotation carries the name in every case.
#include <string>
#include <vector>

#include "bind_fixture.hpp"

namespace hami::e2e {
namespace {

// 70 characters, a valid node name (a DNS subdomain), too long for a label.
const std::string kLongNode =
    "ip-172-31-45-67.ap-southeast-2.compute.internal.gpu-a100-pool-00000001";

struct BindNodeLabel : BindFixture {
  BindNodeLabel() {
    // The kubelet labels the node with its (shorter) host name.
    json node = json::parse(gpu_node(kLongNode, 1));
    node["metadata"]["labels"]["kubernetes.io/hostname"] = "ip-172-31-45-67";
    fake.apply(node.dump());
    fake.apply(gpu_node("gpu-a", 1));
    fake.apply(gpu_pod("ml", "p1", "uid-p1", 3000, 30).dump());
    start();
  }
};

TEST_F(BindNodeLabel, NodeNameLongerThanALabelValueBindsWithoutTheLabel) {
  ASSERT_EQ(kLongNode.size(), 70u);
  EXPECT_EQ(bind("p1", kLongNode), "");
  json pod = stored(fake, "Pod", "ml", "p1");
  EXPECT_EQ(pod["spec"]["nodeName"], kLongNode);
  const std::string devices = "GPU-" + kLongNode + "-0,NVIDIA,3000,30:;";
  EXPECT_EQ(pod["metadata"]["annotations"], json({{"hami.io/vgpu-devices-to-allocate", devices},
                                                  {"hami.io/vgpu-devices-allocated", devices},
                                                  {"hami.io/vgpu-node", kLongNode},
                                                  {"hami.io/vgpu-time", "1750000000"},
                                                  {"hami.io/bind-phase", "allocating"},
                                                  {"hami.io/bind-time", "1750000000"}}));
  EXPECT_FALSE(pod["metadata"].contains("labels")) << pod["metadata"].dump();
  EXPECT_EQ(lock(kLongNode), "2025-06-15T15:06:40Z,ml,p1");
}

// allocateAt filter: filter writes the allocation, the same way.
TEST_F(BindNodeLabel, FilterModeOnALongNodeNameWritesNoLabel) {
  scheduler.reset();
  allocate_at = scheduling::AllocateAt::Filter;
  start();
  const std::vector<std::string> nodes = {kLongNode};
  const auto outcome = scheduler->filter(*cluster->pod("ml", "p1")->model, nodes);
  EXPECT_EQ(outcome.error, "");
  EXPECT_EQ(outcome.fit, std::vector<size_t>{0});
  json pod = stored(fake, "Pod", "ml", "p1");
  EXPECT_EQ(annotation(pod, "hami.io/vgpu-node"), kLongNode);
  EXPECT_EQ(annotation(pod, "hami.io/vgpu-devices-allocated"),
            "GPU-" + kLongNode + "-0,NVIDIA,3000,30:;");
  EXPECT_FALSE(pod["metadata"].contains("labels")) << pod["metadata"].dump();
  EXPECT_EQ(bind("p1", kLongNode), "");
  EXPECT_EQ(stored(fake, "Pod", "ml", "p1")["spec"]["nodeName"], kLongNode);
}

TEST_F(BindNodeLabel, NodeNameThatIsALabelValueGetsTheLabel) {
  EXPECT_EQ(bind("p1", "gpu-a"), "");
  json pod = stored(fake, "Pod", "ml", "p1");
  EXPECT_EQ(pod["metadata"]["labels"], json({{"hami.io/vgpu-node", "gpu-a"}}));
  EXPECT_EQ(annotation(pod, "hami.io/vgpu-node"), "gpu-a");
}

}  // namespace
}  // namespace hami::e2e
