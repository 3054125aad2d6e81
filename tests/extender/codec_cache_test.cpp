// ExtenderArgs decoded with a NodeObjectCache: items whose text the cache
// holds are passed over, everything else reads as without it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "extender/extender_codec.hpp"
#include "extender/node_object_cache.hpp"

namespace {

using namespace hami::extender;

// A Node object of more than NodeObjectCache::kKeyBytes bytes, its
// registration after the first kKeyBytes.
std::string big_node(const std::string& name, const std::string& devmem) {
  return R"({"metadata":{"name":")" + name +
         R"(","uid":"0b5c2d7e-2f0c-4a4e-9d31-8f1f6f0c1a22","resourceVersion":"42",)"
         R"("labels":{"note":")" +
         std::string(NodeObjectCache::kKeyBytes, 'n') +
         R"("},)"
         R"("annotations":{"hami.io/node-nvidia-register":"[{\"id\":\"GPU-0\",\"count\":10,)"
         R"(\"devmem\":)" +
         devmem +
         R"(,\"devcore\":100,\"type\":\"NVIDIA-NVIDIA A100\",\"health\":true}]"}},)"
         R"("status":{"capacity":{"nvidia.com/gpu":"10"},"images":[{"names":["a","b"]}]}})";
}

std::string args_body(const std::vector<std::string>& items, const std::string& after = "") {
  std::string body = R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"items":[)";
  for (size_t i = 0; i < items.size(); ++i)
    body += (i > 0 ? ", " : "") + items[i];
  return body + "]}" + after + "}";
}

// Remembers every item the decode parsed, as the filter does.
void remember_all(NodeObjectCache& cache, const ExtenderArgs& args) {
  std::vector<NodeObjectCache::Fresh> fresh;
  for (size_t i = 0; i < args.node_items.size(); ++i) {
    if (args.known_nodes[i] == nullptr)
      fresh.push_back({args.node_texts[i], hami::k8s::NodeModel(*args.node_items[i])});
  }
  cache.remember(std::move(fresh));
}

TEST(ExtenderCodecCache, CachedItemsArePassedOverAndTheRestIsReadAsBefore) {
  const std::string a = big_node("node-a", "81920");
  const std::string b = big_node("node-b", "81920");
  const std::string small = R"({"metadata":{"name":"small"}})";
  ASSERT_GT(a.find("devmem"), NodeObjectCache::kKeyBytes);
  const std::string body = args_body({a, small, b}, R"(,"NodeNames":null)");
  NodeObjectCache cache(1 << 20);

  const ExtenderArgs first(body, NodeFields::model, &cache);
  ASSERT_EQ(first.known_nodes.size(), 3u);
  EXPECT_EQ(first.known_nodes,
            (std::vector<const NodeObjectCache::Entry*>{nullptr, nullptr, nullptr}));
  remember_all(cache, first);
  EXPECT_EQ(cache.snapshot()->size(), 2u);  // the small item is not kept

  // Node b changed; a did not.
  const std::string b2 = big_node("node-b", "40960");
  const ExtenderArgs second(args_body({a, small, b2}, R"(,"NodeNames":null)"), NodeFields::model,
                            &cache);
  ASSERT_EQ(second.node_items.size(), 3u);
  ASSERT_NE(second.known_nodes[0], nullptr);
  EXPECT_EQ(second.known_nodes[0]->model.name(), "node-a");
  EXPECT_EQ(second.known_nodes[1], nullptr);
  EXPECT_EQ(second.known_nodes[2], nullptr);
  // The texts are the same either way; a cached item's value is empty.
  EXPECT_EQ(second.node_texts, (std::vector<std::string_view>{a, small, b2}));
  EXPECT_TRUE(second.node_items[0]->IsObject());
  EXPECT_EQ(second.node_items[0]->MemberCount(), 0u);
  EXPECT_EQ(hami::k8s::NodeModel(*second.node_items[2]).annotation("hami.io/node-nvidia-register"),
            hami::k8s::NodeModel(*ExtenderArgs(args_body({b2}), NodeFields::model).node_items[0])
                .annotation("hami.io/node-nvidia-register"));
  ASSERT_NE(second.pod, nullptr);
  EXPECT_TRUE(second.node_names == std::nullopt);
  EXPECT_EQ(second.node_cache, cache.snapshot());
}

TEST(ExtenderCodecCache, ItemsThatOnlyShareACachedNodesKeyStopCostingDigestsAfterTwiceTheBody) {
  // A large cached node, and decoys: its first kKeyBytes closed into short
  // objects. Each decoy's lookup would hash the cached node's whole size.
  std::string a = big_node("node-a", "81920");
  a.insert(a.find(R"("status":)"), R"("spec":{"podCIDR":")" + std::string(4000, 'c') + R"("},)");
  const std::string decoy = a.substr(0, NodeObjectCache::kKeyBytes + 4) + R"("}}})";
  ASSERT_EQ(decoy.substr(NodeObjectCache::kKeyBytes - 8, 8), std::string(8, 'n'));
  NodeObjectCache cache(1 << 20);
  remember_all(cache, ExtenderArgs(args_body({a}), NodeFields::model, &cache));
  ASSERT_EQ(cache.snapshot()->size(), 1u);

  // One decoy costs a.size(), within twice the body: node a is still found.
  const ExtenderArgs one(args_body({decoy, a}), NodeFields::model, &cache);
  ASSERT_EQ(one.known_nodes.size(), 2u);
  EXPECT_EQ(one.known_nodes[0], nullptr);
  EXPECT_NE(one.known_nodes[1], nullptr);

  // Twelve decoys use the allowance up after three: node a is parsed, and
  // decodes as the cached one did.
  std::vector<std::string> with_a(12, decoy);
  with_a.push_back(a);
  const ExtenderArgs many(args_body(with_a), NodeFields::model, &cache);
  ASSERT_EQ(many.known_nodes.size(), 13u);
  EXPECT_EQ(many.known_nodes.back(), nullptr);
  EXPECT_EQ(
      hami::k8s::NodeModel(*many.node_items.back()).annotation("hami.io/node-nvidia-register"),
      one.known_nodes[1]->model.annotation("hami.io/node-nvidia-register"));
  EXPECT_EQ(hami::k8s::NodeModel(*many.node_items[0]).name(), "node-a");
}

TEST(ExtenderCodecCache, OnlyTheModelDecodeUsesTheCache) {
  const std::string a = big_node("node-a", "81920");
  NodeObjectCache cache(1 << 20);
  remember_all(cache, ExtenderArgs(args_body({a}), NodeFields::model, &cache));
  const ExtenderArgs all(args_body({a}), NodeFields::all, &cache);
  EXPECT_EQ(all.known_nodes[0], nullptr);
  EXPECT_EQ(all.node_cache, nullptr);
  EXPECT_GT(all.node_items[0]->MemberCount(), 0u);
  const ExtenderArgs model(args_body({a}), NodeFields::model, &cache);
  EXPECT_NE(model.known_nodes[0], nullptr);
}

TEST(ExtenderCodecCache, ErrorsAfterACachedItemKeepTheirOffsets) {
  const std::string a = big_node("node-a", "81920");
  NodeObjectCache cache(1 << 20);
  remember_all(cache, ExtenderArgs(args_body({a}), NodeFields::model, &cache));
  const auto error_of = [&](const std::string& body, const NodeObjectCache* c) {
    try {
      const ExtenderArgs args(body, NodeFields::model, c);
    } catch (const DecodeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const std::string& body :
       {args_body({a, R"({"x":})"}), args_body({a}) + " x", args_body({a, "7"}),
        R"({"Nodes":{"items":[)" + a + R"(} ]}})", R"({"Nodes":{"items":[)" + a}) {
    const std::string with = error_of(body, &cache);
    EXPECT_NE(with, "no error") << body;
    EXPECT_EQ(with, error_of(body, nullptr)) << body;
  }
}

TEST(ExtenderCodecCache, AnItemNestedDeeperOrElsewhereIsNotTakenForANode) {
  const std::string a = big_node("node-a", "81920");
  NodeObjectCache cache(1 << 20);
  remember_all(cache, ExtenderArgs(args_body({a}), NodeFields::model, &cache));
  // The same text as the Pod, inside an item, or in a losing Nodes member.
  const std::string body = R"({"Pod":)" + a + R"(,"Nodes":{"items":[{"metadata":)" +
                           R"({"name":"n","labels":{"x":"y"}},"status":{"capacity":{"k":)" + a +
                           R"(}}}]},"nodes":{"items":[]}})";
  const ExtenderArgs args(body, NodeFields::model, &cache);
  EXPECT_TRUE(args.node_items.empty());
  const std::string body2 = R"({"Nodes":{"items":[{"metadata":{"name":"n","annotations":{"k":)" +
                            std::string("\"v\"") + R"(}},"status":{"capacity":{"c":)" + a +
                            R"(}}}]}})";
  const ExtenderArgs args2(body2, NodeFields::model, &cache);
  ASSERT_EQ(args2.node_items.size(), 1u);
  EXPECT_EQ(args2.known_nodes[0], nullptr);
  ASSERT_NE(args.pod, nullptr);
  EXPECT_GT(args.pod->MemberCount(), 0u);
}

// Dropping the document keeps what a reply echoes: the texts into the
// body, NodeNames and the cache's entries.
TEST(ExtenderCodecCache, DroppedDocumentLeavesTheTextsAndCacheEntries) {
  const std::string a = big_node("node-a", "81920");
  const std::string b = big_node("node-b", "40960");
  NodeObjectCache cache(1 << 20);
  {
    const ExtenderArgs first(args_body({a}), NodeFields::model, &cache);
    remember_all(cache, first);
  }
  const std::string body = args_body({a, b}, R"(,"NodeNames":["node-a","node-b"])");
  ExtenderArgs args(body, NodeFields::model, &cache);
  ASSERT_NE(args.known_nodes[0], nullptr);
  const std::string_view nodes_text = args.nodes_text;
  args.drop_document();
  EXPECT_EQ(args.pod, nullptr);
  EXPECT_EQ(args.nodes, nullptr);
  EXPECT_TRUE(args.node_items.empty());
  EXPECT_TRUE(args.doc.IsNull());
  EXPECT_EQ(args.body, body);
  EXPECT_EQ(args.nodes_text, nodes_text);
  EXPECT_EQ(nodes_text.substr(0, 10), R"({"items":[)");
  ASSERT_EQ(args.node_texts.size(), 2u);
  EXPECT_EQ(args.node_texts[0], a);
  EXPECT_EQ(args.node_texts[1], b);
  EXPECT_EQ(args.node_names, (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(args.known_nodes[0]->model.name(), "node-a");
  EXPECT_EQ(args.known_nodes[1], nullptr);
}

}  // namespace
