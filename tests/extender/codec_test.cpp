// Exact wire tests of the extender types against the upstream fixtures
// (kubernetes/kube-scheduler extender/v1 types_test.go).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "extender/extender_codec.hpp"

namespace {

using namespace hami::extender;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(HAMI_EXTENDER_DATA) + "/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  return text;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string name_of(const rapidjson::Value& object) {
  return object["metadata"]["name"].GetString();
}

TEST(ExtenderCodec, DecodesExtenderArgsFixture) {
  const ExtenderArgs args = decode_extender_args(fixture("ExtenderArgs.json"));
  ASSERT_NE(args.pod, nullptr);
  EXPECT_EQ(name_of(*args.pod), "podname");
  ASSERT_NE(args.nodes, nullptr);
  ASSERT_EQ(args.node_items.size(), 1u);
  EXPECT_EQ(name_of(*args.node_items[0]), "nodename");
  ASSERT_TRUE(args.node_names);
  EXPECT_EQ(*args.node_names, std::vector<std::string>{"node1"});
}

TEST(ExtenderCodec, KeysAreCaseInsensitiveLikeGo) {
  // The upstream test decodes an all-lowercase copy to the same value.
  const ExtenderArgs args = decode_extender_args(lower(fixture("ExtenderArgs.json")));
  ASSERT_NE(args.pod, nullptr);
  ASSERT_EQ(args.node_items.size(), 1u);
  EXPECT_EQ(*args.node_names, std::vector<std::string>{"node1"});

  const ExtenderBindingArgs bind = decode_binding_args(lower(fixture("ExtenderBindingArgs.json")));
  EXPECT_EQ(bind.pod_name, "mypodname");
  EXPECT_EQ(bind.node, "mynode");

  // A later duplicate key wins, as in encoding/json.
  const ExtenderArgs dup =
      decode_extender_args(R"({"NodeNames":["a"],"nodenames":["b","c"],"POD":{"metadata":{}}})");
  EXPECT_EQ(*dup.node_names, (std::vector<std::string>{"b", "c"}));
  EXPECT_NE(dup.pod, nullptr);
}

TEST(ExtenderCodec, NullsAndMissingMembersAreAbsent) {
  const ExtenderArgs args = decode_extender_args(R"({"Pod":null,"Nodes":null,"NodeNames":null})");
  EXPECT_EQ(args.pod, nullptr);
  EXPECT_EQ(args.nodes, nullptr);
  EXPECT_FALSE(args.node_names);
  const ExtenderArgs empty = decode_extender_args("{}");
  EXPECT_EQ(empty.pod, nullptr);
  EXPECT_FALSE(empty.node_names);
  const ExtenderArgs no_items = decode_extender_args(R"({"Nodes":{"metadata":{},"items":null}})");
  EXPECT_NE(no_items.nodes, nullptr);
  EXPECT_TRUE(no_items.node_items.empty());
}

TEST(ExtenderCodec, WrongTypesReadLikeGoErrors) {
  const auto error_of = [](const char* body) {
    try {
      decode_extender_args(body);
    } catch (const DecodeError& e) {
      return std::string(e.what());
    }
    return std::string("<accepted>");
  };
  EXPECT_EQ(error_of(R"({"NodeNames":"node1"})"),
            "json: cannot unmarshal string into Go struct field ExtenderArgs.NodeNames of type "
            "[]string");
  EXPECT_EQ(error_of(R"({"NodeNames":[1]})"),
            "json: cannot unmarshal number into Go struct field ExtenderArgs.NodeNames of type "
            "string");
  EXPECT_EQ(error_of(R"({"Pod":[]})"),
            "json: cannot unmarshal array into Go struct field ExtenderArgs.Pod of type v1.Pod");
  EXPECT_EQ(error_of(R"({"Nodes":{"items":{}}})"),
            "json: cannot unmarshal object into Go struct field ExtenderArgs.Nodes.items of type "
            "[]v1.Node");
  EXPECT_EQ(error_of("[]"), "json: cannot unmarshal array into Go value of type v1.ExtenderArgs");
  EXPECT_EQ(error_of("{\"Pod\":"), "invalid JSON at offset 7: Invalid value.");
  try {
    decode_binding_args(R"({"PodName":5})");
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(),
                 "json: cannot unmarshal number into Go struct field ExtenderBindingArgs.PodName "
                 "of type string");
  }
}

TEST(ExtenderCodec, DecodesBindingArgsFixture) {
  const ExtenderBindingArgs args = decode_binding_args(fixture("ExtenderBindingArgs.json"));
  EXPECT_EQ(args.pod_name, "mypodname");
  EXPECT_EQ(args.pod_namespace, "mypodnamespace");
  EXPECT_EQ(args.pod_uid, "mypoduid");
  EXPECT_EQ(args.node, "mynode");
  const ExtenderBindingArgs nulls = decode_binding_args(R"({"PodUID":null})");
  EXPECT_EQ(nulls.pod_uid, "");
}

TEST(ExtenderCodec, EncodesFilterResultFixtureByteForByte) {
  const std::string expected = fixture("ExtenderFilterResult.json");
  rapidjson::Document doc;
  doc.Parse(expected.c_str());
  FilterResultOut out;
  out.nodes_list = &doc["Nodes"];
  out.node_names = std::vector<std::string>{"node1"};
  out.failed = {{"foo", "bar"}};
  out.unresolvable = {{"baz", "qux"}};
  out.error = "myerror";
  EXPECT_EQ(encode_filter_result(out), expected);

  // Items given one by one are wrapped in a NodeList of the same shape.
  FilterResultOut items;
  items.node_items = std::vector<const rapidjson::Value*>{&doc["Nodes"]["items"][0]};
  items.node_names = std::vector<std::string>{"node1"};
  items.failed = out.failed;
  items.unresolvable = out.unresolvable;
  items.error = "myerror";
  EXPECT_EQ(encode_filter_result(items), expected);
}

TEST(ExtenderCodec, EncodesHamisEmptyShapes) {
  FilterResultOut out;
  out.node_names = std::vector<std::string>{"node-a"};
  EXPECT_EQ(encode_filter_result(out), R"({"Nodes":null,"NodeNames":["node-a"],"FailedNodes":null,)"
                                       R"("FailedAndUnresolvableNodes":null,"Error":""})");
  EXPECT_EQ(encode_filter_result(FilterResultOut{}),
            R"({"Nodes":null,"NodeNames":null,"FailedNodes":null,)"
            R"("FailedAndUnresolvableNodes":null,"Error":""})");
  FilterResultOut none;
  none.node_names = std::vector<std::string>{};
  EXPECT_EQ(encode_filter_result(none).substr(0, 28), R"({"Nodes":null,"NodeNames":[])");
}

TEST(ExtenderCodec, EncodesHostPriorityAndBindingResultFixtures) {
  EXPECT_EQ(encode_host_priority_list({{"myhost", 1}}), "[" + fixture("HostPriority.json") + "]");
  EXPECT_EQ(encode_host_priority_list({}), "[]");
  EXPECT_EQ(encode_binding_result("myerror"), fixture("ExtenderBindingResult.json"));
  EXPECT_EQ(encode_binding_result(""), R"({"Error":""})");
}

TEST(ExtenderCodec, EscapesStrings) {
  FilterResultOut out;
  out.error = "quote \" backslash \\ newline \n";
  const std::string body = encode_filter_result(out);
  EXPECT_EQ(body.substr(body.find("\"Error\"")), R"("Error":"quote \" backslash \\ newline \n"})");
}

}  // namespace

namespace {

using namespace hami::extender;

TEST(ExtenderCodec, LocatesNodeItemTextsForByteExactEcho) {
  const std::string body =
      "{\"Nodes\": {\"items\": [ {\"metadata\":{\"name\":\"a\"}} ,\n"
      "  {  \"meta\\\"data\" : {\"x\":\"}{\\\\\"}, \"status\":[1,{\"y\":2}]} ,{\"k\":[]}\t]},"
      "\"NodeNames\":null}";
  const ExtenderArgs args = decode_extender_args(body);
  const auto texts = node_item_texts(args, body);
  ASSERT_TRUE(texts);
  ASSERT_EQ(texts->size(), 3u);
  EXPECT_EQ((*texts)[0], R"({"metadata":{"name":"a"}})");
  EXPECT_EQ((*texts)[1], R"({  "meta\"data" : {"x":"}{\\"}, "status":[1,{"y":2}]})");
  EXPECT_EQ((*texts)[2], R"({"k":[]})");

  FilterResultOut out;
  out.node_texts = std::vector<std::string_view>{(*texts)[2], (*texts)[0]};
  EXPECT_EQ(encode_filter_result(out),
            R"({"Nodes":{"metadata":{},"items":[{"k":[]},{"metadata":{"name":"a"}}]},)"
            R"("NodeNames":null,"FailedNodes":null,"FailedAndUnresolvableNodes":null,"Error":""})");
}

TEST(ExtenderCodec, ItemTextsGiveUpOnEmptyObjectsOrAnotherBody) {
  const std::string body = R"({"Nodes":{"items":[{"a":1},{}]}})";
  const ExtenderArgs args = decode_extender_args(body);
  EXPECT_FALSE(node_item_texts(args, body));
  const std::string other = R"({"Nodes":{"items":[{"a":1}]}})";
  const ExtenderArgs args2 = decode_extender_args(other);
  EXPECT_FALSE(node_item_texts(args2, other + " "));
}

}  // namespace
