#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "k8s/node.hpp"
#include "k8s/object_error.hpp"

namespace {

using hami::k8s::NodeModel;
using hami::k8s::ObjectError;

rapidjson::Document parse(const char* json) {
  rapidjson::Document d;
  d.Parse(json);
  EXPECT_FALSE(d.HasParseError()) << json;
  return d;
}

std::string sv(hami_str s) {
  return {s.ptr, s.len};
}

TEST(NodeModel, ExposesNameAnnotationsLabelsAndQuantities) {
  const auto doc = parse(R"({"metadata":{"name":"gpu-1","uid":"u-1","resourceVersion":"42",
      "annotations":{"hami.io/node-nvidia-register":"[]","a":"b"},"labels":{"gpu":"on"}},
      "status":{"allocatable":{"nvidia.com/gpu":"8","pods":110},"capacity":{"cpu":"96"}}})");
  const NodeModel node(doc);
  EXPECT_EQ(node.name(), "gpu-1");
  EXPECT_EQ(node.uid(), "u-1");
  EXPECT_EQ(node.resource_version(), "42");
  EXPECT_EQ(node.annotation("a"), "b");
  EXPECT_FALSE(node.annotation("missing"));
  EXPECT_EQ(node.label("gpu"), "on");
  const hami_node_view& v = node.view();
  EXPECT_EQ(v.struct_size, sizeof(hami_node_view));
  EXPECT_EQ(sv(v.name), "gpu-1");
  ASSERT_EQ(v.annotations_len, 2u);
  EXPECT_EQ(sv(v.annotations[0].key), "hami.io/node-nvidia-register");
  ASSERT_EQ(v.allocatable_len, 2u);
  EXPECT_EQ(sv(v.allocatable[1].key), "pods");
  EXPECT_EQ(sv(v.allocatable[1].value), "110");  // a YAML number keeps its text
  ASSERT_EQ(v.capacity_len, 1u);
  ASSERT_EQ(v.labels_len, 1u);
}

TEST(NodeModel, NullMapsAndMissingStatusAreEmpty) {
  const auto doc = parse(R"({"metadata":{"name":"n","annotations":null,"labels":null},
      "status":null})");
  const NodeModel node(doc);
  EXPECT_EQ(node.view().annotations_len, 0u);
  EXPECT_EQ(node.view().allocatable_len, 0u);
}

TEST(NodeModel, RepeatedKeyKeepsLastValue) {
  const auto doc = parse(R"({"metadata":{"name":"n","annotations":{"k":"1","x":"y","k":"2"}}})");
  const NodeModel node(doc);
  ASSERT_EQ(node.view().annotations_len, 2u);
  EXPECT_EQ(node.annotation("k"), "2");
}

TEST(NodeModel, ViewSurvivesMove) {
  const auto doc = parse(R"({"metadata":{"name":"moved","annotations":{"k":"v"}}})");
  NodeModel first(doc);
  const hami_node_view* before = &first.view();
  NodeModel second(std::move(first));
  EXPECT_EQ(&second.view(), before);
  EXPECT_EQ(sv(second.view().annotations[0].value), "v");
}

TEST(NodeModel, RejectsMalformedNodesWithPointer) {
  const auto expect_error = [](const char* json, const std::string& what) {
    const auto doc = parse(json);
    try {
      NodeModel node(doc);
      ADD_FAILURE() << "accepted " << json;
    } catch (const ObjectError& e) {
      EXPECT_EQ(std::string(e.what()), what);
    }
  };
  expect_error(R"([])", "expected a Node object, got an array");
  expect_error(R"({})", "/metadata: is required");
  expect_error(R"({"metadata":{}})", "/metadata/name: is required");
  expect_error(R"({"metadata":{"name":7}})", "/metadata/name: expected a string, got a number");
  expect_error(R"({"metadata":{"name":"n","annotations":{"a/b":true}}})",
               "/metadata/annotations/a~1b: expected a string, got a boolean");
  expect_error(R"({"metadata":{"name":"n"},"status":{"allocatable":{"x":[]}}})",
               "/status/allocatable/x: expected a quantity (string or number), got an array");
}

}  // namespace
