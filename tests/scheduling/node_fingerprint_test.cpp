// NodeDevices::fingerprint decides when a node's registrations must be
// decoded again: only annotations a decode can depend on count.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "scheduling/node_devices.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;

k8s::NodeModel node(rapidjson::Document& doc, const std::string& annotations) {
  const std::string json = R"({"metadata":{"name":"n1","annotations":{)" + annotations + "}}}";
  doc.Parse(json.c_str());
  return k8s::NodeModel(doc);
}

TEST(NodeFingerprint, HostWrittenAnnotationsDoNotCount) {
  hami::testing::SchedulingEnv env("kind: List\nitems: []\n");
  const auto devices = env.registry.devices();
  const std::string reg = R"("hami.io/node-nvidia-register":"[]")";
  rapidjson::Document a, b, c, d;
  const uint64_t plain = scheduling::NodeDevices::fingerprint(devices, node(a, reg));
  // The NVIDIA handshake (stamped by the health pass) and the node lock.
  EXPECT_EQ(
      scheduling::NodeDevices::fingerprint(
          devices, node(b, reg + R"(,"hami.io/node-handshake":"Requesting_2026-11-29 10:00:00")")),
      plain);
  EXPECT_EQ(scheduling::NodeDevices::fingerprint(
                devices, node(c, reg + R"(,"hami.io/mutex.lock":"2026-11-29T10:00:00Z,ns,p")")),
            plain);
  // Anything else may matter to a decode.
  EXPECT_NE(scheduling::NodeDevices::fingerprint(devices, node(d, reg + R"(,"hami.io/other":"x")")),
            plain);
  rapidjson::Document e;
  EXPECT_NE(scheduling::NodeDevices::fingerprint(
                devices, node(e, R"("hami.io/node-nvidia-register":"[{}]")")),
            plain);
}

TEST(NodeFingerprint, CountsWhereKeysEndAndValuesBeginAndTheLastOfARepeatedKey) {
  hami::testing::SchedulingEnv env("kind: List\nitems: []\n");
  const auto devices = env.registry.devices();
  const auto of = [&](const std::string& annotations) {
    rapidjson::Document doc;
    return scheduling::NodeDevices::fingerprint(devices, node(doc, annotations));
  };
  EXPECT_NE(of(R"("ab":"c")"), of(R"("a":"bc")"));
  EXPECT_NE(of(R"("a":"b","c":"d")"), of(R"("a":"bc","":"d")"));
  // A repeated key counts with the value the model keeps (the last).
  EXPECT_EQ(of(R"("a":"old","b":"x","a":"new")"), of(R"("a":"new","b":"x")"));
  EXPECT_NE(of(R"("a":"old","b":"x","a":"new")"), of(R"("a":"old","b":"x")"));
}

TEST(NodeFingerprint, BorrowingAndOwningModelsAgree) {
  hami::testing::SchedulingEnv env("kind: List\nitems: []\n");
  const auto devices = env.registry.devices();
  rapidjson::Document doc;
  doc.Parse(R"({"metadata":{"name":"n1","annotations":{"hami.io/node-nvidia-register":"[]",)"
            R"("x":"y"}}})");
  const k8s::NodeModel owning(doc);
  const k8s::NodeModel borrowing(doc, k8s::NodeModel::Borrowing{});
  ASSERT_EQ(owning.annotation_hashes().size(), 2u);
  EXPECT_EQ(scheduling::NodeDevices::fingerprint(devices, owning),
            scheduling::NodeDevices::fingerprint(devices, borrowing));
}

}  // namespace
