// Exact wire tests of the extender types against the upstream fixtures
// (kubernetes/kube-scheduler extender/v1 types_test.go).
#include <gtest/gtest.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>

#include "extender/extender_codec.hpp"
#include "k8s/json_depth.hpp"
#include "k8s/node.hpp"

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

// Every node of a model decode of `body` has the metadata the standard
// parser finds in `expected` (the same body parsed whole).
void expect_model_metadata(const ExtenderArgs& model, const rapidjson::Document& expected) {
  const auto& items = expected["Nodes"]["items"];
  ASSERT_EQ(model.node_items.size(), items.Size());
  for (size_t i = 0; i < model.node_items.size(); ++i) {
    EXPECT_TRUE((*model.node_items[i])["metadata"] ==
                items[static_cast<rapidjson::SizeType>(i)]["metadata"])
        << i;
  }
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
      "  {  \"meta\\\"data\" : {\"x\":\"}{\\\\\"}, \"status\":[1,{\"y\":2}]} ,{\"k\":[]}\t,{}]},"
      "\"NodeNames\":null}";
  for (const NodeFields fields : {NodeFields::all, NodeFields::model}) {
    const ExtenderArgs args = decode_extender_args(body, fields);
    ASSERT_EQ(args.node_texts.size(), 4u);
    EXPECT_EQ(args.node_texts[0], R"({"metadata":{"name":"a"}})");
    EXPECT_EQ(args.node_texts[1], R"({  "meta\"data" : {"x":"}{\\"}, "status":[1,{"y":2}]})");
    EXPECT_EQ(args.node_texts[2], R"({"k":[]})");
    EXPECT_EQ(args.node_texts[3], "{}");
    EXPECT_EQ(args.nodes_text, body.substr(10, body.find(",\"NodeNames\"") - 10));

    FilterResultOut out;
    out.node_texts = std::vector<std::string_view>{args.node_texts[2], args.node_texts[0]};
    EXPECT_EQ(
        encode_filter_result(out),
        R"({"Nodes":{"metadata":{},"items":[{"k":[]},{"metadata":{"name":"a"}}]},)"
        R"("NodeNames":null,"FailedNodes":null,"FailedAndUnresolvableNodes":null,"Error":""})");
  }
}

TEST(ExtenderCodec, ConsecutiveItemTextsAreEchoedAsOneSliceOfTheBody) {
  const std::string body =
      "{\"Nodes\":{\"items\":[{\"a\":1} ,\n\t{\"b\":2}, {\"c\":3},{\"d\":4}]}}";
  const ExtenderArgs args = decode_extender_args(body, NodeFields::model);
  ASSERT_EQ(args.node_texts.size(), 4u);
  const auto parts_of = [&](std::vector<size_t> fit, std::string_view source) {
    FilterResultOut out;
    out.node_texts.emplace();
    for (const size_t i : fit)
      out.node_texts->push_back(args.node_texts[i]);
    out.node_texts_source = source;
    return encode_filter_result_parts(out);
  };
  const std::string tail =
      R"(]},"NodeNames":null,"FailedNodes":null,"FailedAndUnresolvableNodes":null,"Error":""})";
  // Whitespace around the comma is part of the slice, as sent.
  const EncodedFilterResult all = parts_of({0, 1, 2, 3}, args.body);
  ASSERT_EQ(all.views.size(), 1u);
  EXPECT_EQ(all.views[0], "{\"a\":1} ,\n\t{\"b\":2}, {\"c\":3},{\"d\":4}");
  EXPECT_EQ(all.trailer, tail);
  // A node left out, or an order that is not the body's, splits the slice.
  const EncodedFilterResult gap = parts_of({0, 2, 3}, args.body);
  EXPECT_EQ(gap.views, (std::vector<std::string_view>{R"({"a":1})", ",", R"({"c":3},{"d":4})"}));
  const EncodedFilterResult reversed = parts_of({1, 0}, args.body);
  EXPECT_EQ(reversed.views, (std::vector<std::string_view>{R"({"b":2})", ",", R"({"a":1})"}));
  // Without the source the texts are never joined through bytes between them.
  const EncodedFilterResult unsourced = parts_of({2, 3}, {});
  EXPECT_EQ(unsourced.views, (std::vector<std::string_view>{R"({"c":3})", ",", R"({"d":4})"}));
  EXPECT_EQ(unsourced.joined(), R"({"Nodes":{"metadata":{},"items":[{"c":3},{"d":4})" + tail);
  EXPECT_EQ(parts_of({2, 3}, args.body).joined(), unsourced.joined());
}

TEST(ExtenderCodec, ItemTextsComeFromTheWinningNodesAndItems) {
  // Later duplicates win: the texts are those of the last Nodes object's
  // last items array, whatever came before.
  const std::string body =
      R"({"nodes":{"items":[{"a":1}]},"Nodes":{"Items":[{"b":2},{"c":3}],"items":[{"d":4}],)"
      R"("x":{"items":[{"e":5}]}},"Pod":{"Nodes":{"items":[{"f":6}]}}})";
  for (const NodeFields fields : {NodeFields::all, NodeFields::model}) {
    const ExtenderArgs args = decode_extender_args(body, fields);
    ASSERT_EQ(args.node_items.size(), 1u);
    ASSERT_EQ(args.node_texts.size(), 1u);
    EXPECT_EQ(args.node_texts[0], R"({"d":4})");
    EXPECT_EQ(args.nodes_text, R"({"Items":[{"b":2},{"c":3}],"items":[{"d":4}],)"
                               R"("x":{"items":[{"e":5}]}})");
  }
  // A null last items: no nodes, nothing to echo.
  const ExtenderArgs none = decode_extender_args(R"({"Nodes":{"items":[{"a":1}],"items":null}})");
  EXPECT_TRUE(none.node_items.empty());
  EXPECT_TRUE(none.node_texts.empty());
}

TEST(ExtenderCodec, ModelFieldsKeepWhatTheNodeModelReads) {
  const std::string body =
      R"({"Pod":{"metadata":{"name":"p"},"spec":{"x":[1,{"y":2}]}},"Other":[1,2],)"
      R"("Nodes":{"metadata":{"resourceVersion":"9"},"items":[)"
      R"({"metadata":{"name":"n","uid":"u","resourceVersion":"1","labels":{"l":"v"},)"
      R"("annotations":{"a":"b"},"managedFields":[{"m":1}],"creationTimestamp":"t"},)"
      R"("spec":{"taints":[]},"status":{"allocatable":{"cpu":"1"},"capacity":{"cpu":2},)"
      R"("images":[{"names":["i"]}],"conditions":[]},"kind":"Node"},)"
      R"({"metadata":"not an object","status":[1,2]}]},"NodeNames":["n"]})";
  const ExtenderArgs model = decode_extender_args(body, NodeFields::model);
  const ExtenderArgs all = decode_extender_args(body, NodeFields::all);
  const auto text = [](const rapidjson::Value& v) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    v.Accept(w);
    return std::string(buffer.GetString(), buffer.GetSize());
  };
  EXPECT_EQ(
      text(model.doc),
      R"({"Pod":{"metadata":{"name":"p"},"spec":{"x":[1,{"y":2}]}},"Nodes":{"items":[)"
      R"({"metadata":{"name":"n","uid":"u","resourceVersion":"1","labels":{"l":"v"},)"
      R"("annotations":{"a":"b"}},"status":{"allocatable":{"cpu":"1"},"capacity":{"cpu":2}}},)"
      R"({"metadata":"not an object","status":[1,2]}]},"NodeNames":["n"]})");
  EXPECT_EQ(text(all.doc), body);
  ASSERT_EQ(model.node_texts.size(), 2u);
  EXPECT_EQ(model.node_texts, all.node_texts);
  EXPECT_EQ(model.nodes_text, all.nodes_text);
  EXPECT_EQ(model.body, body);
}

TEST(ExtenderCodec, TakesTheBodyWithoutChangingIt) {
  std::string body = R"({"Nodes":{"items":[{"metadata":{"name":"a\"b\u00e9"}}]}})";
  const std::string sent = body;
  const char* const bytes = body.data();
  const ExtenderArgs args = decode_extender_args(std::move(body), NodeFields::model);
  EXPECT_EQ(args.body.data(), bytes);  // moved, not copied
  EXPECT_EQ(args.body, sent);          // parsed without writing into it
  EXPECT_EQ(args.node_texts[0], R"({"metadata":{"name":"a\"b\u00e9"}})");
  EXPECT_STREQ((*args.node_items[0])["metadata"]["name"].GetString(), "a\"b\xc3\xa9");
}

TEST(ExtenderCodec, DecodesStringsLikeTheStandardParser) {
  // Strings are copied in runs between the characters that need decoding;
  // put those at every offset around the run boundaries, in kept and in
  // dropped values.
  std::string items;
  for (size_t at = 0; at < 40; ++at) {
    for (const char* special : {"\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\xc3\xa9",
                                "\\/\\b\\f\\r\\t", "\\\"\\\"\\\\\\\"", "\\\\u0041", "\\u0041\\\"",
                                "[{\\\"id\\\":\\\"GPU-0\\\",\\\"count\\\":10}]"}) {
      std::string text(at, 'x');
      text += special;
      text += std::string(at % 7, 'y');
      items += std::string(items.empty() ? "" : ",") + R"({"metadata":{"name":")" + text +
               R"(","annotations":{")" + text + R"(":")" + text + R"("}},"spec":{"x":")" + text +
               R"("}})";
    }
  }
  const std::string body = R"({"Nodes":{"items":[)" + items + "]}}";
  rapidjson::Document expected;
  expected.Parse(body.c_str());
  ASSERT_FALSE(expected.HasParseError());
  const ExtenderArgs all = decode_extender_args(body, NodeFields::all);
  EXPECT_TRUE(all.doc == expected);
  const ExtenderArgs model = decode_extender_args(body, NodeFields::model);
  expect_model_metadata(model, expected);
  for (size_t i = 0; i < model.node_items.size(); ++i)
    EXPECT_FALSE(model.node_items[i]->HasMember("spec")) << i;
  // An invalid escape is reported where its backslash stands, wherever it
  // falls, after simple escapes or none, in kept and in dropped values.
  for (size_t at = 0; at < 20; ++at) {
    for (const char* before : {"", "\\\"", "\\n\\/"}) {
      for (const char* key : {"name", "dropped"}) {
        const std::string head = R"({"Nodes":{"items":[{"metadata":{")" + std::string(key) +
                                 R"(":")" + std::string(at, 'x') + before;
        const std::string bad = head + R"(\x"}}]}})";
        try {
          decode_extender_args(bad, NodeFields::model);
          ADD_FAILURE() << "accepted " << bad;
        } catch (const DecodeError& e) {
          EXPECT_EQ(std::string(e.what()), "invalid JSON at offset " + std::to_string(head.size()) +
                                               ": Invalid escape character in string.")
              << bad;
        }
      }
    }
  }
  // A backslash ending the body is an error, not a read past it.
  EXPECT_THROW(decode_extender_args(std::string(R"({"Pod":{"x":"ab\)"), NodeFields::model),
               DecodeError);
  // A control character inside a string is an error, wherever it falls.
  for (size_t at = 0; at < 20; ++at) {
    std::string bad =
        R"({"Nodes":{"items":[{"metadata":{"name":")" + std::string(at, 'x') + "\t" + R"("}}]}})";
    EXPECT_THROW(decode_extender_args(bad, NodeFields::model), DecodeError) << at;
  }
}

TEST(ExtenderCodec, BorrowingNodeModelsReadTheDecodedStrings) {
  const std::string body =
      R"({"Nodes":{"items":[{"metadata":{"name":"n","uid":"u","resourceVersion":"7",)"
      R"("labels":{"l":"v"},"annotations":{"a":"[{\"id\":\"GPU-0\"}]"}},)"
      R"("status":{"allocatable":{"cpu":"1"},"capacity":{"cpu":2,"mem":1.5}}}]}})";
  const ExtenderArgs args = decode_extender_args(body, NodeFields::model);
  const rapidjson::Value& item = *args.node_items[0];
  const hami::k8s::NodeModel owned(item);
  const hami::k8s::NodeModel borrowed(item, hami::k8s::NodeModel::Borrowing{});
  EXPECT_EQ(borrowed.name(), owned.name());
  EXPECT_EQ(borrowed.uid(), owned.uid());
  EXPECT_EQ(borrowed.resource_version(), owned.resource_version());
  EXPECT_EQ(borrowed.label("l"), owned.label("l"));
  EXPECT_EQ(borrowed.annotation("a"), R"([{"id":"GPU-0"}])");
  // The document's own bytes, not copies.
  EXPECT_EQ(borrowed.annotation("a")->data(), item["metadata"]["annotations"]["a"].GetString());
  EXPECT_EQ(borrowed.name().data(), item["metadata"]["name"].GetString());
  // Numbers are rendered, so they are copied.
  const hami_node_view& view = borrowed.view();
  ASSERT_EQ(view.capacity_len, 2u);
  EXPECT_EQ(std::string_view(view.capacity[0].value.ptr, view.capacity[0].value.len), "2");
  EXPECT_EQ(std::string_view(view.capacity[1].value.ptr, view.capacity[1].value.len), "1.5");
  ASSERT_EQ(view.allocatable_len, 1u);
  EXPECT_EQ(view.allocatable[0].value.ptr, item["status"]["allocatable"]["cpu"].GetString());
}

TEST(ExtenderCodec, PartsJoinToTheWholeResult) {
  FilterResultOut out;
  out.failed = {{"n1", "no fit"}};
  EncodedFilterResult plain = encode_filter_result_parts(out);
  EXPECT_TRUE(plain.views.empty());
  EXPECT_TRUE(plain.trailer.empty());
  EXPECT_EQ(plain.head, encode_filter_result(out));

  out.nodes_text = R"({"items":[]})";
  const EncodedFilterResult list = encode_filter_result_parts(out);
  EXPECT_EQ(list.head, R"({"Nodes":)");
  EXPECT_EQ(list.joined(),
            R"({"Nodes":{"items":[]},"NodeNames":null,"FailedNodes":{"n1":"no fit"},)"
            R"("FailedAndUnresolvableNodes":null,"Error":""})");
  EXPECT_EQ(list.joined(), encode_filter_result(out));
}

TEST(ExtenderCodec, EchoedNodesMatchTheSerialisedOnes) {
  // For a compact body (what kube-scheduler sends) the reply echoing the
  // texts is byte for byte the one re-serialised from a whole document.
  const std::string body =
      R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"metadata":{"resourceVersion":"3"},"items":[)"
      R"({"metadata":{"name":"n0","annotations":{"x":"[{\"id\":\"GPU-0\"}]"}},"spec":{}},)"
      R"({"metadata":{"name":"n1"},"status":{"images":[{"names":["a","b"]}],"x":1.5}},)"
      R"({"metadata":{"name":"n2"},"status":{"conditions":[],"capacity":{"cpu":"8"}}}]},)"
      R"("NodeNames":null})";
  const ExtenderArgs args = decode_extender_args(body, NodeFields::all);
  for (const std::vector<size_t>& fit :
       std::vector<std::vector<size_t>>{{}, {1}, {0, 2}, {2, 1, 0}}) {
    FilterResultOut texts;
    FilterResultOut values;
    texts.failed = values.failed = {{"n9", "reason \"quoted\""}};
    texts.node_texts.emplace();
    values.node_items.emplace();
    for (const size_t i : fit) {
      texts.node_texts->push_back(args.node_texts[i]);
      values.node_items->push_back(args.node_items[i]);
    }
    EXPECT_EQ(encode_filter_result_parts(texts).joined(), encode_filter_result(values));
  }
  FilterResultOut list_text;
  list_text.nodes_text = args.nodes_text;
  FilterResultOut list_value;
  list_value.nodes_list = args.nodes;
  EXPECT_EQ(encode_filter_result(list_text), encode_filter_result(list_value));
}

TEST(ExtenderCodec, ParseErrorsKeepTheirOffsets) {
  const auto error_of = [](std::string body) {
    try {
      decode_extender_args(std::move(body), NodeFields::model);
    } catch (const DecodeError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of(R"({"Nodes":{"items":[{"a":}]}})"),
            "invalid JSON at offset 24: Invalid value.");
  EXPECT_EQ(error_of(R"({"Nodes":{"items":[]}} x)"),
            "invalid JSON at offset 23: The document root must not be followed by other values.");
  // The text ends at its first NUL, as it did for a NUL-terminated copy.
  EXPECT_EQ(error_of(std::string("{\"NodeNames\":[]}\0garbage", 24)), "");
}

}  // namespace

namespace hami::extender {
namespace {

// The reader refuses the level past the bound before recursing into it, so
// the routes decoding ExtenderArgs skip the router's depth scan of their
// (megabyte) bodies; nesting in dropped members counts too.
TEST(ExtenderCodec, NestingPastTheBoundIsRefusedWhileDecoding) {
  const auto nested = [](std::size_t levels) {
    return std::string(levels, '[') + std::string(levels, ']');
  };
  // A kept member (inside the Pod) and a dropped one.
  const std::vector<std::pair<std::string, std::string>> wrappers = {
      {R"({"Pod":{"metadata":{"name":"p"},"spec":{"deep":)", "}}}"},
      {R"({"Pod":null,"Unknown":)", "}"}};
  for (const auto& [open, close] : wrappers) {
    // The wrapper itself nests 3 (Pod) or 1 (Unknown) levels.
    const std::size_t room = k8s::kMaxJsonDepth - (close.size());
    EXPECT_NO_THROW(decode_extender_args(open + nested(room) + close)) << open;
    EXPECT_THROW(decode_extender_args(open + nested(room + 1) + close), DecodeError) << open;
    try {
      decode_extender_args(open + std::string(100000, '['));
      ADD_FAILURE() << open << ": a 100000-level body was accepted";
    } catch (const DecodeError& e) {
      EXPECT_STREQ(e.what(), "request body nests JSON deeper than 512 levels") << open;
    }
  }
  // Many brackets, little depth: not refused.
  std::string wide = R"({"Pod":null,"Unknown":[)";
  for (int i = 0; i < 5000; ++i)
    wide += i == 0 ? "[]" : ",[]";
  wide += "]}";
  EXPECT_NO_THROW(decode_extender_args(wide));
}

}  // namespace
}  // namespace hami::extender

namespace hami::extender {
namespace {

// Dropped members are passed over without the reader where they are
// plainly valid (extender/json_skip.hpp) and read by it otherwise: the
// decode keeps the same nodes, and every body fails with the same message,
// as when nothing is dropped.
TEST(ExtenderCodec, PassingOverDroppedMembersChangesNoResultAndNoError) {
  const std::vector<std::string> dropped = {
      R"("images":[{"names":["registry.k8s.io/pause:3.9","x\"y"],"sizeBytes":321}])",
      R"("conditions" : [ { "type" : "Ready" , "status" : "True" } ] )",
      R"("daemonEndpoints":{"kubeletEndpoint":{"Port":10250}})",
      R"("n":-12.5,"t":true,"f":false,"z":null,"e":{},"a":[])",
      R"("u":"\u00e9\ud83d\ude00")",  // \u escapes: left to the reader
      R"("big":1e308,"long":12345678901234567890)",
      // errors inside dropped members, each where the reader finds it
      R"("bad":"\x")",
      R"("bad":"\ud800")",
      R"("bad":1e999)",
      R"("bad":[1,])",
      R"("bad":{"a" 1})",
      R"("bad":01)",
      R"("bad":tru)",
      R"("bad":falsey)",
      R"("bad" 1)",
      "\"bad\":\"a\x01\"",
      R"("bad":[1]])",
  };
  for (const std::string& member : dropped) {
    const std::string body =
        R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"items":[{"metadata":{"name":"n",)" + member +
        R"(,"annotations":{"a":"b"}},"status":{)" + member + R"(,"capacity":{"cpu":"2"}}}]}})";
    std::string all_error;
    std::string model_error;
    std::optional<ExtenderArgs> all_args;
    try {
      all_args.emplace(body, NodeFields::all);
    } catch (const DecodeError& e) {
      all_error = e.what();
    }
    try {
      const ExtenderArgs model(body, NodeFields::model);
      ASSERT_TRUE(all_args.has_value()) << body;
      ASSERT_EQ(model.node_items.size(), 1u);
      EXPECT_EQ(model.node_texts, all_args->node_texts) << body;
      const rapidjson::Value& node = *model.node_items[0];
      EXPECT_STREQ(node["metadata"]["name"].GetString(), "n") << body;
      EXPECT_STREQ(node["metadata"]["annotations"]["a"].GetString(), "b") << body;
      EXPECT_STREQ(node["status"]["capacity"]["cpu"].GetString(), "2") << body;
      EXPECT_EQ(node["metadata"].MemberCount(), 2u) << body;
      EXPECT_EQ(node["status"].MemberCount(), 1u) << body;
    } catch (const DecodeError& e) {
      model_error = e.what();
    }
    EXPECT_EQ(model_error, all_error) << body;
    EXPECT_EQ(all_error.empty(), member.find("bad") == std::string::npos) << body;
  }
}

// The depth bound holds inside dropped members passed over, at the same
// level as when the reader reads them.
TEST(ExtenderCodec, DroppedMembersPassedOverKeepTheDepthBound) {
  const auto body = [](std::size_t levels) {
    // The member sits 4 levels down: the body, Nodes, items, the node.
    return R"({"Nodes":{"items":[{"spec":)" + std::string(levels, '[') + std::string(levels, ']') +
           "}]}}";
  };
  const std::size_t room = k8s::kMaxJsonDepth - 4;
  EXPECT_NO_THROW(decode_extender_args(body(room), NodeFields::model));
  try {
    decode_extender_args(body(room + 1), NodeFields::model);
    ADD_FAILURE() << "one level too many was accepted";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "request body nests JSON deeper than 512 levels");
  }
}

}  // namespace
}  // namespace hami::extender

namespace hami::extender {
namespace {

// Kept strings far from the end of the body are copied and decoded a block
// at a time: escapes at every offset of a block, an escape whose character
// is the next block's first, escaped quotes and backslashes among other
// specials, and the stops it leaves to the reader — with the body going on
// long after the string.
TEST(ExtenderCodec, DecodesEscapesInsideBlocksLikeTheStandardParser) {
  const std::string after = R"(,"spec":{"padding":")" + std::string(80, 'p') + R"("}}]}})";
  std::string items;
  for (size_t at = 0; at < 34; ++at) {
    for (const char* escapes :
         {"\\\"", "\\\\\\\"", "\\\"\\\\", "\\/\\b\\f\\n\\r\\t", "\\\\\\\\\\\\",
          "{\\\"id\\\":\\\"GPU-0\\\",\\\"n\\\":1}\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\""}) {
      const std::string text = std::string(at, 'x') + escapes + std::string(at % 5, 'y');
      items += std::string(items.empty() ? "" : ",") + R"({"metadata":{"name":")" + text +
               R"(","annotations":{"k":")" + text + R"("}}})";
    }
  }
  const std::string body = R"({"Nodes":{"items":[)" + items + "]}}";
  rapidjson::Document expected;
  expected.Parse(body.c_str());
  ASSERT_FALSE(expected.HasParseError());
  expect_model_metadata(decode_extender_args(body, NodeFields::model), expected);
  // Stops handed to the reader keep their errors and offsets.
  for (size_t at = 0; at < 34; ++at) {
    for (const char* before : {"", "\\\"", "\\n\\/\\\\\\\""}) {
      for (const std::string bad : {"\\x", "\\uZZZZ", "\x01"}) {
        const std::string head =
            R"({"Nodes":{"items":[{"metadata":{"name":")" + std::string(at, 'x') + before;
        const std::string text = head + bad + "\"}" + after;
        rapidjson::Document standard;
        standard.Parse(text.c_str());
        ASSERT_TRUE(standard.HasParseError());
        ASSERT_EQ(standard.GetErrorOffset(), head.size());
        try {
          decode_extender_args(text, NodeFields::model);
          ADD_FAILURE() << "accepted " << text;
        } catch (const DecodeError& e) {
          EXPECT_EQ(std::string(e.what()),
                    "invalid JSON at offset " + std::to_string(head.size()) + ": " +
                        rapidjson::GetParseError_En(standard.GetParseError()))
              << text;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hami::extender
