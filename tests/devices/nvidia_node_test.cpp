// NVIDIA node inventory and health through nvidia.so's ABI: HAMi §3.1, §3.3,
// Test_GetNodeDevices (+ invalid JSON, MIG profiles, pair scores),
// legacy colon decoding, TestFit_DeviceCordon's annotation, TestCheckHealth
// and Test_CheckHealth, TestNodeCleanUp, TestNodeDeleted_ReuseAfterDeletion.
#include <gtest/gtest.h>

#include <ctime>

#include "device_under_test.hpp"
#include "k8s_views.hpp"

namespace hami::testing {
namespace {

constexpr const char* kRegister = "hami.io/node-nvidia-register";
constexpr const char* kScore = "hami.io/node-nvidia-score";
constexpr const char* kHandshake = "hami.io/node-handshake";

// The §3.1 example: two A100s, the second unhealthy, zero values omitted.
constexpr const char* kTwoA100 =
    R"([{"id":"GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448","count":10,"devmem":40960,"devcore":100,"type":"NVIDIA A100-SXM4-40GB","mode":"hami-core","health":true},
 {"id":"GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec","index":1,"count":10,"devmem":40960,"devcore":100,"type":"NVIDIA A100-SXM4-40GB","numa":1,"mode":"hami-core"}])";

NodeInventory decode(const DeviceUnderTest& dut, NodeFixture& node) {
  return dut.plugin().decode_node(node.view());
}

TEST(NvidiaNode, DecodesJsonWithOmittedZeroValues) {
  const DeviceUnderTest dut("nvidia");
  NodeFixture node("gpu-1");
  node.annotation(kRegister, kTwoA100);
  const NodeInventory inv = decode(dut, node);
  ASSERT_EQ(inv.devices.size(), 2u);
  const DeviceRecord& a = inv.devices[0];
  EXPECT_EQ(a.id, "GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448");
  EXPECT_EQ(a.type, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(a.mode, "hami-core");
  EXPECT_EQ(a.index, 0u);
  EXPECT_EQ(a.count, 10);
  EXPECT_EQ(a.memory_mib, 40960);
  EXPECT_EQ(a.cores, 100);
  EXPECT_EQ(a.numa, 0);
  EXPECT_EQ(a.flags, HAMI_DEVICE_HEALTHY);
  const DeviceRecord& b = inv.devices[1];
  EXPECT_EQ(b.index, 1u);
  EXPECT_EQ(b.numa, 1);
  EXPECT_EQ(b.flags, 0u);  // health omitted = false
  EXPECT_TRUE(inv.pair_scores.empty());
}

TEST(NvidiaNode, KeysAreCaseInsensitiveAndUnknownKeysIgnored) {
  const DeviceUnderTest dut("nvidia");
  NodeFixture node;
  node.annotation(
      kRegister,
      R"([{"ID":"GPU-0","Count":5,"DevMem":8192,"DEVCORE":100,"Type":"NVIDIA-Tesla P4","Numa":0,"Health":true,"Index":0,"customInfo":{"a":[1,{"b":null}]},"devicevendor":"NVIDIA"}])");
  const NodeInventory inv = decode(dut, node);
  ASSERT_EQ(inv.devices.size(), 1u);
  EXPECT_EQ(inv.devices[0].id, "GPU-0");
  EXPECT_EQ(inv.devices[0].count, 5);
  EXPECT_EQ(inv.devices[0].memory_mib, 8192);
  EXPECT_EQ(inv.devices[0].type, "NVIDIA-Tesla P4");
  EXPECT_EQ(inv.devices[0].flags, HAMI_DEVICE_HEALTHY);
}

TEST(NvidiaNode, MigProfilesAreSkipped) {
  const DeviceUnderTest dut("nvidia");
  NodeFixture node;
  node.annotation(
      kRegister,
      R"([{"id":"GPU-0","count":7,"devmem":40960,"devcore":100,"type":"NVIDIA-A100-SXM4-40GB","numa":0,"health":true,"mode":"mig","migProfiles":[{"name":"1g.5gb","memoryMB":5120,"core":14,"sliceCount":1,"instanceCount":7,"placements":[{"start":6,"size":1}]}]}])");
  const NodeInventory inv = decode(dut, node);
  ASSERT_EQ(inv.devices.size(), 1u);
  EXPECT_EQ(inv.devices[0].mode, "mig");
  EXPECT_EQ(inv.devices[0].count, 7);
}

TEST(NvidiaNode, EmptyListIsZeroDevices) {
  // HAMi returns an error ("no gpu found on node") and keeps stale devices;
  // an empty registration here means the node has no NVIDIA devices.
  const DeviceUnderTest dut("nvidia");
  NodeFixture node;
  node.annotation(kRegister, "[]");
  EXPECT_TRUE(decode(dut, node).devices.empty());
}

TEST(NvidiaNode, MissingAnnotationIsNotFound) {
  const DeviceUnderTest dut("nvidia");
  NodeFixture node("node-03");
  try {
    decode(dut, node);
    FAIL();
  } catch (const CallError& e) {
    EXPECT_EQ(e.status(), HAMI_NOT_FOUND);
    EXPECT_EQ(std::string(e.what()),
              "nvidia.decode_node: node node-03 has no hami.io/node-nvidia-register annotation");
  }
}

TEST(NvidiaNode, MalformedRegistrationsAreInvalidArgumentWithPlace) {
  const DeviceUnderTest dut("nvidia");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not-valid-json", "neither a JSON array nor the legacy colon form"},
      {R"([{"id":"GPU-0","count":"10"}])", "element 0 key \"count\": unexpected string"},
      {R"([{"id":"GPU-0","count":10.5}])",
       "element 0 key \"count\": unexpected number with a fraction or exponent"},
      {R"([{"id":"GPU-0","devmem":4294967296}])", "element 0 key \"devmem\": value out of range"},
      {R"([{"id":"GPU-0"},{"id":7}])", "element 1 key \"id\": unexpected number"},
      {R"([{"id":"GPU-0","health":"true"}])", "element 0 key \"health\": unexpected string"},
      {R"([{"id":"GPU-0","index":-1}])", "element 0 key \"index\": value out of range"},
      {R"({"id":"GPU-0"})", "expected a JSON array, found object"},
      {R"([null])", "element is null"},
      {R"([1])", "expected device objects, found number"},
      {R"([{"id":"GPU-0"}] x)", "invalid JSON at offset"},
      // A UTF-8 lead byte as the very last byte (found by fuzzing: the JSON
      // reader's validator used to read past the end of the buffer).
      {"[{\"id\":\"GPU-\xe3", "Invalid encoding in string"},
      {R"([{"id":"GPU-0","devicepairscore":)" + std::string(100, '['),
       "element 0: nesting deeper than 64 levels"},
      {R"([{"id":"GPU-0","custominfo":{"a":)" + std::string(100, '['),
       "element 0: nesting deeper than 64 levels"},
      // custominfo is Go's map[string]any: an array does not decode into it.
      {R"([{"id":"GPU-0","custominfo":[]}])", "element 0 key \"custominfo\": unexpected array"},
      {R"([{"id":"GPU-0")", "invalid JSON at offset"},
  };
  for (const auto& [value, message] : cases) {
    NodeFixture node("gpu-7");
    node.annotation(kRegister, value);
    try {
      decode(dut, node);
      ADD_FAILURE() << "accepted " << value;
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT) << value;
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("nvidia.decode_node: node gpu-7: hami.io/node-nvidia-register: ", 0), 0u)
          << what;
      EXPECT_NE(what.find(message), std::string::npos) << what;
    }
  }
}

TEST(NvidiaNode, DecodesLegacyColonForm) {
  const DeviceUnderTest dut("nvidia");
  NodeFixture node;
  node.annotation(kRegister,
                  "GPU-ebe7c3f7-303d-558d-435e-99a160631fe4,10,7680,100,NVIDIA-Tesla P4,0,true:"
                  "GPU-2,5,16384,200,NVIDIA-Tesla T4,1,false,3,mps:");
  const NodeInventory inv = decode(dut, node);
  ASSERT_EQ(inv.devices.size(), 2u);
  EXPECT_EQ(inv.devices[0].id, "GPU-ebe7c3f7-303d-558d-435e-99a160631fe4");
  EXPECT_EQ(inv.devices[0].count, 10);
  EXPECT_EQ(inv.devices[0].memory_mib, 7680);
  EXPECT_EQ(inv.devices[0].type, "NVIDIA-Tesla P4");
  EXPECT_EQ(inv.devices[0].mode, "hami-core");  // 7 fields: index 0, hami-core
  EXPECT_EQ(inv.devices[0].index, 0u);
  EXPECT_EQ(inv.devices[0].flags, HAMI_DEVICE_HEALTHY);
  EXPECT_EQ(inv.devices[1].index, 3u);
  EXPECT_EQ(inv.devices[1].mode, "mps");
  EXPECT_EQ(inv.devices[1].cores, 200);
  EXPECT_EQ(inv.devices[1].numa, 1);
  EXPECT_EQ(inv.devices[1].flags, 0u);
}

TEST(NvidiaNode, RejectsEveryMalformedLegacyVariant) {
  const DeviceUnderTest dut("nvidia");
  for (const char* bad : {
           "GPU-1,10,7680,100,NVIDIA-Tesla P4,0:",                    // 6 fields
           "GPU-1,10,7680,100,NVIDIA-Tesla P4,0,true,0:",             // 8 fields
           "GPU-1,10,7680,100,NVIDIA-Tesla P4,0,true,0,m,x:",         // 10 fields
           "GPU-1,ten,7680,100,NVIDIA-Tesla P4,0,true:",              // count not a number
           "GPU-1,10,7680,100,NVIDIA-Tesla P4,0,yes:",                // health not a bool
           "GPU-1,10,99999999999,100,NVIDIA-Tesla P4,0,true:",        // devmem beyond int32
           "GPU-1,10,7680,100,NVIDIA-Tesla P4,0,true,-1,hami-core:",  // negative index
       }) {
    NodeFixture node;
    node.annotation(kRegister, bad);
    EXPECT_THROW(decode(dut, node), CallError) << bad;
  }
}

TEST(NvidiaNode, PairScoresAndCordon) {
  const DeviceUnderTest dut("nvidia");
  NodeFixture node;
  node.annotation(
      kRegister,
      R"([{"id":"GPU-0","count":1,"devmem":8192,"devcore":100,"type":"NVIDIA-V100","health":true},{"id":"GPU-1","count":1,"devmem":8192,"devcore":100,"type":"NVIDIA-V100","health":true}])");
  node.annotation(
      kScore,
      R"([{"uuid":"GPU-0","score":{"GPU-1":100,"GPU-9":50}},{"UUID":"GPU-1","Score":{"GPU-0":100}}])");
  node.annotation("hami.io/device-cordon", "GPU-1, ");
  const NodeInventory inv = decode(dut, node);
  ASSERT_EQ(inv.devices.size(), 2u);
  EXPECT_EQ(inv.devices[0].flags, HAMI_DEVICE_HEALTHY);
  EXPECT_EQ(inv.devices[1].flags, HAMI_DEVICE_HEALTHY | HAMI_DEVICE_CORDONED);
  // GPU-9 is not registered on this node and is dropped.
  ASSERT_EQ(inv.pair_scores.size(), 2u);
  EXPECT_EQ(inv.pair_scores[0].from, "GPU-0");
  EXPECT_EQ(inv.pair_scores[0].to, "GPU-1");
  EXPECT_EQ(inv.pair_scores[0].score, 100);
  EXPECT_EQ(inv.pair_scores[1].from, "GPU-1");
  EXPECT_EQ(inv.pair_scores[1].to, "GPU-0");
}

TEST(NvidiaNode, InvalidPairScoresMakeTheNodeUnreadable) {
  const DeviceUnderTest dut("nvidia");
  const std::vector<std::string> bad_values = {
      "not-valid-json", R"({"uuid":"GPU-0"})", R"([{"uuid":"GPU-0","score":{"GPU-1":"x"}}])",
      R"([{"uuid":"GPU-0","score":{"GPU-1":1.5}}])",
      std::string(1000000, '[')};  // nesting deeper than any stack
  for (const std::string& bad : bad_values) {
    NodeFixture node;
    node.annotation(
        kRegister,
        R"([{"id":"GPU-0","count":1,"devmem":8192,"devcore":100,"type":"V100","health":true}])");
    node.annotation(kScore, bad);
    try {
      decode(dut, node);
      ADD_FAILURE() << "accepted " << bad.substr(0, 40);
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find("hami.io/node-nvidia-score"), std::string::npos);
    }
  }
}

std::string local_stamp(std::int64_t unix) {
  const std::time_t t = static_cast<std::time_t>(unix);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "Requesting_%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

constexpr std::int64_t kNow = 1767225600;  // 2026-01-01T00:00:00Z

TEST(NvidiaHealth, GenericHandshake) {
  struct Case {
    const char* name;
    std::optional<std::string> handshake;
    std::string allocatable;
    bool healthy, needs_update;
    bool stamps;
  };
  const std::vector<Case> cases = {
      {"absent: stamp and update", std::nullopt, "4", true, true, true},
      {"other value: stamp and update", "Deleted_2025-01-01 00:00:00", "4", true, true, true},
      {"fresh request", local_stamp(kNow - 30), "0", true, false, false},
      {"requesting without timestamp", "Requesting", "0", true, false, false},
      {"unparsable timestamp", "Requesting_yesterday", "0", true, false, false},
      {"expired with allocatable", local_stamp(kNow - 120), "4", true, false, false},
      {"expired without allocatable", local_stamp(kNow - 2 * 3600), "0", false, false, false},
  };
  for (const Case& c : cases) {
    // A fresh instance per case: no per-node memory yet.
    const DeviceUnderTest dut("nvidia");
    NodeFixture node("test-node");
    if (c.handshake)
      node.annotation(kHandshake, *c.handshake);
    node.allocatable("nvidia.com/gpu", c.allocatable);
    const HealthResult r = dut.plugin().node_health(node.view(), kNow);
    // current (4) != remembered (0) turns "no update" into an update.
    const bool first_sight = c.allocatable != "0";
    EXPECT_EQ(r.healthy, c.healthy || first_sight) << c.name;
    EXPECT_EQ(r.needs_update, c.needs_update || first_sight) << c.name;
    if (c.stamps) {
      ASSERT_EQ(r.writes.size(), 1u) << c.name;
      EXPECT_EQ(r.writes[0].key, kHandshake);
      EXPECT_EQ(r.writes[0].value, local_stamp(kNow)) << c.name;
    } else {
      EXPECT_TRUE(r.writes.empty()) << c.name;
    }
  }
}

TEST(NvidiaHealth, CheckHealthWithPerNodeMemory) {
  constexpr const char* kReg =
      R"([{"id":"GPU-0","count":10,"devmem":8192,"devcore":100,"type":"NVIDIA-A100","mode":"hami-core","health":true}])";
  constexpr const char* kRegChanged =
      R"([{"id":"GPU-0","count":10,"devmem":8192,"devcore":100,"type":"NVIDIA-A100","mode":"hami-core"}])";
  const std::string expired = local_stamp(kNow - 2 * 3600);

  // "current=0 reported=0 but handshake pending" → healthy, no update.
  {
    const DeviceUnderTest dut("nvidia");
    NodeFixture node("test-node");
    node.annotation(kHandshake, local_stamp(kNow));
    const HealthResult r = dut.plugin().node_health(node.view(), kNow);
    EXPECT_TRUE(r.healthy);
    EXPECT_FALSE(r.needs_update);
  }
  // "current=0 reported=0 but handshake expired" → unhealthy.
  {
    const DeviceUnderTest dut("nvidia");
    NodeFixture node("test-node");
    node.annotation(kHandshake, expired);
    const HealthResult r = dut.plugin().node_health(node.view(), kNow);
    EXPECT_FALSE(r.healthy);
    EXPECT_FALSE(r.needs_update);
  }
  // Remembered count and registration, then: unchanged → no update; changed
  // → update; deleted → update; allocatable drops to 0 → unhealthy once.
  {
    const DeviceUnderTest dut("nvidia");
    NodeFixture node("test-node");
    node.annotation(kHandshake, expired)
        .annotation(kRegister, kReg)
        .allocatable("nvidia.com/gpu", "4");
    HealthResult r = dut.plugin().node_health(node.view(), kNow);
    EXPECT_TRUE(r.healthy);
    EXPECT_TRUE(r.needs_update) << "first sight of 4 GPUs";

    r = dut.plugin().node_health(node.view(), kNow);
    EXPECT_TRUE(r.healthy);
    EXPECT_FALSE(r.needs_update) << "unchanged register annotation keeps the cache";

    node.annotation(kRegister, kRegChanged);
    r = dut.plugin().node_health(node.view(), kNow);
    EXPECT_TRUE(r.healthy);
    EXPECT_TRUE(r.needs_update) << "changed register annotation requests a refresh";

    NodeFixture deleted("test-node");
    deleted.annotation(kHandshake, expired).allocatable("nvidia.com/gpu", "4");
    r = dut.plugin().node_health(deleted.view(), kNow);
    EXPECT_TRUE(r.healthy);
    EXPECT_TRUE(r.needs_update) << "deleted register annotation requests a refresh";

    NodeFixture gone("test-node");
    gone.annotation(kHandshake, local_stamp(kNow));  // even with a fresh handshake
    r = dut.plugin().node_health(gone.view(), kNow);
    EXPECT_FALSE(r.healthy) << "GPUs disappeared from allocatable";
    EXPECT_FALSE(r.needs_update);
    r = dut.plugin().node_health(gone.view(), kNow);
    EXPECT_TRUE(r.healthy) << "after forgetting, the generic result applies";
  }
}

TEST(NvidiaHealth, CleanupRemovesHandshakeAndForgetsTheNode) {
  const DeviceUnderTest dut("nvidia");
  NodeFixture node("reused-node");
  node.annotation(kHandshake, local_stamp(kNow)).allocatable("nvidia.com/gpu", "4");
  EXPECT_TRUE(dut.plugin().node_health(node.view(), kNow).needs_update);
  EXPECT_FALSE(dut.plugin().node_health(node.view(), kNow).needs_update);

  const std::vector<AnnotationWrite> writes = dut.plugin().node_cleanup(node.view());
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].key, kHandshake);
  EXPECT_FALSE(writes[0].value.has_value());

  // A re-created node with the same name is not hampered by stale memory.
  const HealthResult r = dut.plugin().node_health(node.view(), kNow);
  EXPECT_TRUE(r.healthy);
  EXPECT_TRUE(r.needs_update);
}

}  // namespace
}  // namespace hami::testing
