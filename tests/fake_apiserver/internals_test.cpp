// The fake server's building blocks on their own: store snapshots, patches,
// selectors, query decoding.
#include <gtest/gtest.h>

#include "fake_kinds.hpp"
#include "fake_patch.hpp"
#include "fake_query.hpp"
#include "fake_selectors.hpp"
#include "fake_store.hpp"

namespace hami::testing::fake {
namespace {

Json named(const char* kind, const char* ns, const char* name, int value) {
  return Json{{"kind", kind},
              {"metadata", {{"name", name}, {"namespace", ns}}},
              {"spec", {{"value", value}}}};
}

TEST(FakeStore, AtRevisionUndoesLaterWrites) {
  Store store(100);
  const KindInfo& pods = *kind_by_name("Pod");
  store.put(pods, named("Pod", "a", "p1", 1));
  store.put(pods, named("Pod", "a", "p2", 1));
  const uint64_t snapshot = store.revision();
  store.put(pods, named("Pod", "a", "p1", 2));
  store.erase(pods, "a", "p2");
  store.put(pods, named("Pod", "a", "p3", 1));
  store.put(*kind_by_name("Node"), named("Node", "", "n", 1));

  const auto then = store.at_revision(pods, snapshot);
  ASSERT_TRUE(then);
  ASSERT_EQ(then->size(), 2u);
  EXPECT_EQ((*then)[0].first, "a/p1");
  EXPECT_EQ((*(*then)[0].second)["spec"]["value"], 1);
  EXPECT_EQ((*then)[1].first, "a/p2");
  EXPECT_EQ(store.all(pods).size(), 2u);  // p1, p3

  store.compact();
  EXPECT_FALSE(store.at_revision(pods, snapshot));
  EXPECT_TRUE(store.history().empty());
  EXPECT_EQ(store.compacted(), store.revision());
}

TEST(FakeStore, StampsKindUidAndRevisionAndTrimsHistory) {
  Store store(2);
  const KindInfo& leases = *kind_by_name("Lease");
  auto stored = store.put(leases, named("Lease", "kube-system", "l", 1));
  EXPECT_EQ((*stored)["apiVersion"], "coordination.k8s.io/v1");
  EXPECT_EQ(meta_string(*stored, "resourceVersion"), std::to_string(store.revision()));
  EXPECT_EQ(meta_string(*stored, "uid").size(), 36u);
  EXPECT_EQ(meta_string(*stored, "uid")[14], '4');  // version 4
  store.put(leases, named("Lease", "kube-system", "l", 2));
  store.put(leases, named("Lease", "kube-system", "l", 3));
  EXPECT_EQ(store.history().size(), 2u);
  EXPECT_EQ(store.compacted(), store.history().front().revision - 1);
  // Cluster-scoped kinds never keep a namespace.
  auto node = store.put(*kind_by_name("Node"), named("Node", "x", "n", 1));
  EXPECT_FALSE((*node)["metadata"].contains("namespace"));
  EXPECT_NE(store.find(*kind_by_name("Node"), "", "n"), nullptr);
}

TEST(FakePatch, JsonPatchOperationsAllOrNothing) {
  const Json doc = {{"a", {{"b", 1}}}, {"list", {1, 2}}};
  std::string error;
  auto out = apply_json_patch(doc, Json::parse(R"([{"op":"add","path":"/a/c","value":2},
                                             {"op":"copy","from":"/a/b","path":"/d"},
                                             {"op":"move","from":"/a/c","path":"/e"},
                                             {"op":"replace","path":"/list/0","value":9},
                                             {"op":"remove","path":"/a/b"},
                                             {"op":"test","path":"/d","value":1}])"),
                              error);
  ASSERT_TRUE(out) << error;
  EXPECT_EQ(*out, Json::parse(R"({"a":{},"list":[9,2],"d":1,"e":2})"));

  EXPECT_FALSE(apply_json_patch(
      doc, Json::parse(R"([{"op":"remove","path":"/a/b"},{"op":"remove","path":"/zz"}])"), error));
  EXPECT_EQ(error, "remove operation does not apply: doc is missing path: \"/zz\": missing value");
  EXPECT_FALSE(apply_json_patch(doc, Json::parse(R"([{"op":"frobnicate","path":"/a"}])"), error));
  EXPECT_EQ(error, "Unexpected kind: frobnicate");
  EXPECT_FALSE(apply_json_patch(doc, Json::object(), error));
}

// `test` as the API server's patch library judges it: null tests that a
// member is absent (or null); the parent must exist.
TEST(FakePatch, JsonPatchTestOfNullTestsAbsence) {
  const Json doc = Json::parse(R"({"metadata":{"annotations":{"a/b":"1"}},"spec":{}})");
  std::string error;
  const auto test = [&](const char* path, const Json& value) {
    Json op = {{"op", "test"}, {"path", path}};
    op["value"] = value;
    return apply_json_patch(doc, Json::array({op}), error).has_value();
  };
  EXPECT_TRUE(test("/spec/nodeName", nullptr));
  EXPECT_TRUE(test("/metadata/labels", nullptr));
  EXPECT_TRUE(test("/metadata/annotations/x", nullptr));
  EXPECT_TRUE(test("/metadata/annotations/a~1b", "1"));
  EXPECT_FALSE(test("/metadata/annotations/a~1b", nullptr));
  EXPECT_EQ(error, "testing value /metadata/annotations/a~1b failed: test failed");
  EXPECT_FALSE(test("/metadata/annotations", nullptr));
  EXPECT_FALSE(test("/metadata/annotations/x", "1"));
  EXPECT_EQ(error, "testing value /metadata/annotations/x failed: test failed");
  EXPECT_FALSE(test("/metadata/labels/x", nullptr));
  EXPECT_EQ(error,
            "test operation does not apply: is missing path: /metadata/labels/x: missing "
            "value");
}

TEST(FakePatch, MergePatchFollowsRfc7386) {
  const Json doc = Json::parse(R"({"a":"b","c":{"d":"e","f":"g"},"l":[1,2]})");
  EXPECT_EQ(apply_merge_patch(doc, Json::parse(R"({"a":"z","c":{"f":null},"l":[3]})")),
            Json::parse(R"({"a":"z","c":{"d":"e"},"l":[3]})"));
}

TEST(FakeSelectors, ParseErrorsAndOperators) {
  const KindInfo& pods = *kind_by_name("Pod");
  std::string error;
  EXPECT_FALSE(Selector::parse_fields("spec.nodeName", pods, error));
  EXPECT_EQ(error, "invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'");
  EXPECT_FALSE(Selector::parse_labels("app in (a,b)", error));
  auto s = Selector::parse_fields("metadata.namespace==a,spec.nodeName!=n1", pods, error);
  ASSERT_TRUE(s);
  const Json in_a = Json::parse(R"({"metadata":{"namespace":"a"},"spec":{"nodeName":"n2"}})");
  const Json on_n1 = Json::parse(R"({"metadata":{"namespace":"a"},"spec":{"nodeName":"n1"}})");
  EXPECT_TRUE(s->matches(in_a));
  EXPECT_FALSE(s->matches(on_n1));
  auto empty = Selector::parse_labels("", error);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
  EXPECT_TRUE(empty->matches(in_a));
}

TEST(FakeQuery, DecodesLikeGoAndRoundTripsTokens) {
  const Query q("fieldSelector=spec.nodeName%3Dn1&labelSelector=a+b&watch=true&flag");
  EXPECT_EQ(q.get("fieldSelector"), "spec.nodeName=n1");
  EXPECT_EQ(q.get("labelSelector"), "a b");
  EXPECT_TRUE(q.flag("watch"));
  EXPECT_TRUE(q.has("flag"));
  EXPECT_FALSE(q.flag("flag"));
  EXPECT_EQ(q.get("missing", "x"), "x");
  EXPECT_EQ(percent_decode("%zz%4"), "%zz%4");
  const std::string bytes("a/b\0c\xff", 6);
  EXPECT_EQ(base64url_decode(base64url_encode(bytes)), bytes);
  EXPECT_EQ(base64url_encode("hi?"), "aGk_");
  EXPECT_FALSE(base64url_decode("a+b"));
}

TEST(FakeKinds, RoutesOfEveryServedPath) {
  auto r = parse_route("/api/v1/namespaces/ns/pods/p/binding");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind->kind, "Pod");
  EXPECT_EQ(r->ns, "ns");
  EXPECT_EQ(r->name, "p");
  EXPECT_EQ(r->subresource, "binding");
  r = parse_route("/api/v1/namespaces/ns");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind->kind, "Namespace");
  EXPECT_EQ(r->name, "ns");
  r = parse_route("/apis/events.k8s.io/v1/namespaces/ns/events");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind->kind, "Event");
  EXPECT_EQ(r->api_version, "events.k8s.io/v1");
  r = parse_route("/api/v1/namespaces/ns/bindings");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->legacy_bindings);
  EXPECT_FALSE(parse_route("/api/v1/namespaces/ns/pods/p/status"));
  EXPECT_FALSE(parse_route("/api/v1/pods/p"));
  EXPECT_FALSE(parse_route("/apis/coordination.k8s.io/v1/pods"));
  EXPECT_FALSE(parse_route("/healthz"));
}

}  // namespace
}  // namespace hami::testing::fake
