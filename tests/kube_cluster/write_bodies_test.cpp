// Request bodies, byte for byte against the API-server fixtures.
#include "kube/write_bodies.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_files.hpp"

namespace hami::kube {
namespace {

using testing::compact;
using testing::compact_fixture;
using testing::parse;

constexpr int64_t kFixtureNanos = 1784539862123456789;  // 2026-07-20T09:31:02.123456789Z

cluster::Event fixture_event() {
  cluster::Event e;
  e.kind = "Pod";
  e.namespace_ = "ml-team";
  e.name = "llm-serve-6f7d8c9b5-k2l3m";
  e.uid = "c0ffee00-1234-4abc-8def-0123456789ab";
  e.type = "Normal";
  e.reason = "BindingSucceed";
  e.message = "Successfully bound to gpu-node-a100-01 (2 vGPUs)";
  return e;
}

TEST(WriteBodies, PodMetadataPatchMatchesFixture) {
  cluster::PodMetadataPatch patch;
  patch.annotations = {{"hami.io/vgpu-node", "gpu-node-a100-01"},
                       {"hami.io/bind-phase", "allocating"},
                       {"hami.io/obsolete-key", std::nullopt}};
  EXPECT_EQ(pod_metadata_patch_body(patch), compact_fixture("pod-merge-patch-annotations.json"));
}

TEST(WriteBodies, PodMetadataPatchWithLabelsAndEscapes) {
  cluster::PodMetadataPatch patch;
  patch.annotations = {{"a", "quote\"d"}};
  patch.labels = {{"l", std::nullopt}};
  EXPECT_EQ(pod_metadata_patch_body(patch),
            R"({"metadata":{"annotations":{"a":"quote\"d"},"labels":{"l":null}}})");
  EXPECT_EQ(pod_metadata_patch_body({}), R"({"metadata":{}})");
}

TEST(WriteBodies, PodJsonPatchMatchesFixture) {
  cluster::PodMetadataPatch patch;
  patch.annotations = {{"hami.io/bind-phase", "success"}};
  patch.expect_resource_version = "918310";
  EXPECT_EQ(pod_metadata_json_patch_body(patch, "", nullptr),
            compact_fixture("pod-json-patch-annotations-with-test.json"));
}

cluster::PodRecord known_pod(const char* json) {
  cluster::PodRecord record;
  record.model = std::make_shared<k8s::PodModel>(parse(json));
  record.resource_version = "77";
  return record;
}

TEST(WriteBodies, PodJsonPatchTestsComeFirstAndRemovalsNeedTheKey) {
  const auto known = known_pod(
      R"({"metadata":{"annotations":{"hami.io/vgpu-node":"n1","a~b":"x"},"labels":{"l":"v"}}})");
  cluster::PodMetadataPatch undo;
  undo.annotations = {
      {"hami.io/vgpu-node", std::nullopt}, {"a~b", "restored"}, {"absent/key", std::nullopt}};
  undo.labels = {{"l", std::nullopt}};
  undo.expect_annotations = {{"hami.io/vgpu-node", "n1"}};
  undo.expect_labels = {{"l", "v"}};
  EXPECT_EQ(pod_metadata_json_patch_body(undo, "uid-1", &known),
            R"([{"op":"test","path":"/metadata/uid","value":"uid-1"},)"
            R"({"op":"test","path":"/metadata/annotations/hami.io~1vgpu-node","value":"n1"},)"
            R"({"op":"test","path":"/metadata/labels/l","value":"v"},)"
            R"({"op":"remove","path":"/metadata/annotations/hami.io~1vgpu-node"},)"
            R"({"op":"add","path":"/metadata/annotations/a~0b","value":"restored"},)"
            R"({"op":"remove","path":"/metadata/labels/l"}])");
}

// A map the pod lacks is added whole behind a test that it is still absent
// (a test for null), not behind the pod's resourceVersion.
TEST(WriteBodies, PodJsonPatchAddsAMissingMapWholeBehindItsAbsence) {
  const auto bare = known_pod(R"({"metadata":{}})");
  cluster::PodMetadataPatch patch;
  patch.annotations = {{"hami.io/vgpu-node", "n1"}, {"gone", std::nullopt}};
  patch.labels = {{"hami.io/vgpu-node", "n1"}};
  EXPECT_EQ(pod_metadata_json_patch_body(patch, "u", &bare),
            R"([{"op":"test","path":"/metadata/uid","value":"u"},)"
            R"({"op":"test","path":"/metadata/annotations","value":null},)"
            R"({"op":"test","path":"/metadata/labels","value":null},)"
            R"({"op":"add","path":"/metadata/annotations","value":{"hami.io/vgpu-node":"n1"}},)"
            R"({"op":"add","path":"/metadata/labels","value":{"hami.io/vgpu-node":"n1"}}])");
}

// The allocation write's preconditions: the uid, the pod unbound and not
// being deleted, each key as read — a value, or absent (a test for null
// on the member; on the map when the pod has none) —, no resourceVersion.
TEST(WriteBodies, PodJsonPatchTestsTheKeysItWritesAsRead) {
  const auto known =
      known_pod(R"({"metadata":{"annotations":{"hami.io/bind-phase":"failed","other":"x"}}})");
  cluster::PodMetadataPatch patch;
  patch.annotations = {{"hami.io/vgpu-node", "n1"}, {"hami.io/bind-phase", "allocating"}};
  patch.labels = {{"hami.io/vgpu-node", "n1"}};
  patch.expect_unbound = true;
  cluster::expect_as_read(patch, known);
  EXPECT_EQ(patch.expect_annotations, (cluster::KeyValues{{"hami.io/bind-phase", "failed"}}));
  EXPECT_EQ(patch.expect_absent_annotations, std::vector<std::string>{"hami.io/vgpu-node"});
  EXPECT_EQ(patch.expect_absent_labels, std::vector<std::string>{"hami.io/vgpu-node"});
  EXPECT_EQ(
      pod_metadata_json_patch_body(patch, "u", &known),
      R"([{"op":"test","path":"/metadata/uid","value":"u"},)"
      R"({"op":"test","path":"/spec/nodeName","value":null},)"
      R"({"op":"test","path":"/metadata/deletionTimestamp","value":null},)"
      R"({"op":"test","path":"/metadata/labels","value":null},)"
      R"({"op":"test","path":"/metadata/annotations/hami.io~1bind-phase","value":"failed"},)"
      R"({"op":"test","path":"/metadata/annotations/hami.io~1vgpu-node","value":null},)"
      R"({"op":"add","path":"/metadata/annotations/hami.io~1vgpu-node","value":"n1"},)"
      R"({"op":"add","path":"/metadata/annotations/hami.io~1bind-phase","value":"allocating"},)"
      R"({"op":"add","path":"/metadata/labels","value":{"hami.io/vgpu-node":"n1"}}])");
}

TEST(WriteBodies, NodePatchCarriesResourceVersionFirst) {
  EXPECT_EQ(
      node_annotations_patch_body({{"hami.io/mutex.lock", "2026-06-14T15:05:03Z,ns,p"}},
                                  std::string_view("918310")),
      R"({"metadata":{"resourceVersion":"918310","annotations":{"hami.io/mutex.lock":"2026-06-14T15:05:03Z,ns,p"}}})");
  EXPECT_EQ(node_annotations_patch_body(
                {{"hami.io/node-handshake", "Requesting_2026-07-20 09:31:00"}}, std::nullopt),
            compact_fixture("node-merge-patch-handshake.json"));
}

TEST(WriteBodies, BindingMatchesFixture) {
  // The fixture also carries metadata.annotations, which this write never
  // sends (ClusterState::bind has no annotations).
  auto expected = parse(testing::apiserver_fixture("binding-post-body.json"));
  expected["metadata"].RemoveMember("annotations");
  EXPECT_EQ(binding_body("ml-team", "llm-serve-6f7d8c9b5-k2l3m",
                         "c0ffee00-1234-4abc-8def-0123456789ab", "gpu-node-a100-01"),
            compact(expected));
  EXPECT_EQ(
      binding_body("ns", "p", "", "n"),
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p","namespace":"ns"},"target":{"apiVersion":"v1","kind":"Node","name":"n"}})");
}

TEST(WriteBodies, EventNameIsObjectDotHexNanos) {
  EXPECT_EQ(event_name("llm-serve-6f7d8c9b5-k2l3m", 0x17e3a1b2c3d4e5f7),
            "llm-serve-6f7d8c9b5-k2l3m.17e3a1b2c3d4e5f7");
  EXPECT_EQ(event_name("p", 255), "p.00000000000000ff");
}

TEST(WriteBodies, EventsV1MatchesFixture) {
  EventStamp stamp;
  stamp.name = "llm-serve-6f7d8c9b5-k2l3m.17e3a1b2c3d4e5f7";
  stamp.unix_nanos = kFixtureNanos;
  stamp.component = "example.io/gpu-scheduler-extender";
  stamp.instance = "gpu-extender-7d9f8c6b5-abcde";
  EXPECT_EQ(events_v1_event_body(fixture_event(), stamp),
            compact_fixture("event-events-v1-create-body.json"));
}

TEST(WriteBodies, CoreV1MatchesFixture) {
  EventStamp stamp;
  stamp.name = "llm-serve-6f7d8c9b5-k2l3m.17e3a1b2c3d4e5f6";
  stamp.unix_nanos = kFixtureNanos;
  stamp.component = "gpu-scheduler-extender";
  stamp.instance = "gpu-extender-7d9f8c6b5-abcde";
  stamp.resource_version = "918315";
  EXPECT_EQ(core_v1_event_body(fixture_event(), stamp),
            compact_fixture("event-core-v1-create-body.json"));
}

TEST(WriteBodies, EventLimitsAndClusterScopedNamespace) {
  cluster::Event e = fixture_event();
  e.kind = "Node";
  e.namespace_.clear();
  e.uid.clear();
  e.reason = "FilteringFailed";
  e.message = std::string(1023, 'x') + "\xc3\xa9";  // é straddles the 1024-byte limit
  EventStamp stamp;
  stamp.name = "n.1";
  stamp.unix_nanos = kFixtureNanos;
  stamp.component = "hami-scheduler";
  stamp.instance = "h";
  const auto doc = parse(events_v1_event_body(e, stamp));
  EXPECT_STREQ(doc["metadata"]["namespace"].GetString(), "default");
  EXPECT_STREQ(doc["action"].GetString(), "Filtering");
  EXPECT_FALSE(doc["regarding"].HasMember("namespace"));
  EXPECT_EQ(std::string(doc["note"].GetString()), std::string(1023, 'x'));
  EXPECT_EQ(event_namespace(e), "default");
}

}  // namespace
}  // namespace hami::kube
