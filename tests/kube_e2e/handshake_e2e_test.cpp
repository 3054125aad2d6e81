// The running host against a node whose handshake expired long ago with
// nothing allocatable (HAMi's Test_CheckHealth "Requesting state expired"):
// the vendor is not registered there. HAMi runs a vendor's cleanup only for
// a vendor it has in its device cache (TestRegisterSkipsCleanupForUntracked-
// Vendor), so on a node it has never found healthy the expired stamp stays
// and the node stays unusable, pass after pass. Deleting the handshake let
// the next pass stamp a fresh `Requesting_<now>` and place pods there.
#include "host_fixture.hpp"
#include "vendors_cluster.hpp"

namespace hami::e2e {
namespace {

constexpr const char* kExpired = "Requesting_2020-01-01 00:00:00";

struct HandshakeNode {
  const char* node;
  const char* handshake;  // annotation key
  const char* count;      // the resource the vendor's health reads
  const char* pod;        // a pending pod of that vendor
};

const HandshakeNode kNodes[] = {
    {"dcu-z100-0", "hami.io/node-handshake-dcu", "hygon.com/dcunum", "demo-dcu"},
    {"bi150-0", "hami.io/node-handshake-BI-V150", "iluvatar.ai/BI-V150-vgpu", "demo-bi150"},
    {"biren-0", "hami.io/node-handshake-biren", "birentech.com/gpu", "demo-biren"},
    {"va-0", "hami.io/node-handshake-va", "vastaitech.com/va", "demo-va"},
    {"npu-910b3-0", "hami.io/node-handshake-Ascend910B3", "huawei.com/Ascend910B3", "demo-npu"},
};

struct ExpiredHandshakeE2E : HostFixture {
  json snapshot;
  ExpiredHandshakeE2E() {
    snapshot = load_vendors_cluster();
    for (json& item : snapshot["items"]) {
      if (item["kind"] == "Node") {
        for (const HandshakeNode& n : kNodes) {
          if (item["metadata"]["name"] != n.node)
            continue;
          item["metadata"]["annotations"][n.handshake] = kExpired;
          item["status"]["allocatable"][n.count] = "0";
          item["status"]["capacity"][n.count] = "0";
        }
      }
      fake.apply(item.dump());
    }
    start_host(use_vendor_plugins);
  }

  json pending(const std::string& name) const { return snapshot_pod(snapshot, name); }
};

TEST_F(ExpiredHandshakeE2E, NodesStayUnhealthyAndKeepTheirHandshakePassAfterPass) {
  ASSERT_TRUE(
      eventually([&] { return call(host->server().port(), "GET", "/readyz").status == 200; }));
  auto& stack = host->extender();
  ASSERT_TRUE(eventually([&] { return stack.gate().empty(); })) << stack.gate();
  // The first pass, then two more: one is all a wrong cleanup needs to
  // delete the stamp, the next to stamp a fresh one.
  ASSERT_TRUE(eventually([&] { return stack.health->passes() >= 1; }));
  for (int i = 0; i < 2; ++i) {
    const unsigned before = stack.health->passes();
    stack.health->wake();
    ASSERT_TRUE(eventually([&] { return stack.health->passes() > before; }));
  }

  json names = json::array();
  for (const json& item : snapshot["items"]) {
    if (item["kind"] == "Node")
      names.push_back(item["metadata"]["name"]);
  }
  for (const HandshakeNode& n : kNodes) {
    EXPECT_EQ(annotation(stored(fake, "Node", "", n.node), n.handshake), kExpired) << n.node;
    const json pod = pending(n.pod);
    ASSERT_FALSE(pod.is_null()) << n.pod;
    const json args = {{"Pod", pod}, {"NodeNames", names}};
    const auto filtered = call(host->extender_server().port(), "POST", "/filter", args.dump());
    EXPECT_EQ(filtered.status, 200);
    const json result = json::parse(filtered.body);
    EXPECT_TRUE(result["NodeNames"].is_null() || result["NodeNames"].empty())
        << n.pod << ": " << filtered.body;
    EXPECT_EQ(result["FailedAndUnresolvableNodes"].value(n.node, "<fits>"), "node unregistered")
        << n.pod << ": " << filtered.body;
  }
}

}  // namespace
}  // namespace hami::e2e
