// NodeObjectCache: hits on the exact text only, found without the text
// kept, one entry per node name, the byte budget, the per-key bound, and
// snapshots that outlive changes.
#include "extender/node_object_cache.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using hami::extender::NodeObjectCache;

// A Node object's text of `size` bytes (at least kKeyBytes): the name first,
// then an annotation padded with `fill`.
std::string node_text(const std::string& name, char fill = 'x',
                      size_t size = NodeObjectCache::kKeyBytes + 44) {
  const std::string head = R"({"metadata":{"name":")" + name + R"(","annotations":{"pad":")";
  const std::string tail = R"("}}})";
  return head + std::string(size - head.size() - tail.size(), fill) + tail;
}

NodeObjectCache::Fresh fresh(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  return {text, hami::k8s::NodeModel(doc)};
}

void remember(NodeObjectCache& cache, const std::vector<std::string>& texts) {
  std::vector<NodeObjectCache::Fresh> batch;
  for (const std::string& t : texts)
    batch.push_back(fresh(t));
  cache.remember(std::move(batch));
}

const NodeObjectCache::Entry* find_in(const NodeObjectCache::Snapshot& s, const std::string& text) {
  return s.find(text.data(), text.data() + text.size());
}

TEST(NodeObjectCache, FindsAnEntryOnlyWhereItsWholeTextIs) {
  NodeObjectCache cache(1 << 20);
  const std::string a = node_text("node-a");
  remember(cache, {a});
  const auto snap = cache.snapshot();
  ASSERT_EQ(snap->size(), 1u);

  // Followed by more of the body: a hit, with the model of the text.
  const std::string body = a + R"(,{"metadata":{"name":"b"}}]})";
  const NodeObjectCache::Entry* hit = find_in(*snap, body);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->size, a.size());
  EXPECT_EQ(hit->model.name(), "node-a");
  EXPECT_EQ(hit->model.annotation("pad"),
            std::string(static_cast<size_t>(std::count(a.begin(), a.end(), 'x')), 'x'));

  // One byte different past the key, or the text cut short: no hit.
  std::string changed = a;
  changed[a.size() - 10] = 'y';
  EXPECT_EQ(find_in(*snap, changed), nullptr);
  EXPECT_EQ(snap->find(a.data(), a.data() + a.size() - 1), nullptr);
  // Less than the key's length left: no hit, and nothing is read past it.
  EXPECT_EQ(snap->find(a.data(), a.data() + NodeObjectCache::kKeyBytes - 1), nullptr);
  // Another node: no hit.
  EXPECT_EQ(find_in(*snap, node_text("node-b")), nullptr);
}

TEST(NodeObjectCache, KeepsNoCopyOfTheTextsItFindsAgain) {
  const std::string a = node_text("node-a");
  NodeObjectCache cache(1 << 20);
  {
    // The text lives in a body that is gone after remember().
    auto body = std::make_unique<std::string>(a);
    std::vector<NodeObjectCache::Fresh> batch;
    batch.push_back(fresh(*body));
    cache.remember(std::move(batch));
    std::fill(body->begin(), body->end(), '#');
  }
  const auto snap = cache.snapshot();
  // Counted as its model only: the text is not held.
  EXPECT_EQ(snap->bytes(), a.size() + NodeObjectCache::kEntryBytes);
  const std::string again = a;  // the same bytes at another address
  const NodeObjectCache::Entry* hit = find_in(*snap, again);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->model.name(), "node-a");
  // Same length, same key, one byte different: no hit.
  std::string other = a;
  other[NodeObjectCache::kKeyBytes + 1] = 'q';
  EXPECT_EQ(find_in(*snap, other), nullptr);
}

TEST(NodeObjectCache, FailedChecksSpendTheAllowanceAndNothingIsCheckedBeyondIt) {
  const std::string a = node_text("node-a", 'x', 1000);
  NodeObjectCache cache(1 << 20);
  remember(cache, {a});
  const auto snap = cache.snapshot();
  // The same first kKeyBytes, other bytes after them.
  std::string other = a;
  other[900] = 'y';
  std::size_t allowance = 2500;
  EXPECT_EQ(snap->find(other.data(), other.data() + other.size(), allowance), nullptr);
  EXPECT_EQ(allowance, 1500u);
  EXPECT_EQ(snap->find(other.data(), other.data() + other.size(), allowance), nullptr);
  EXPECT_EQ(allowance, 500u);
  // A hit costs nothing; with less left than the entry's size there is no
  // check, and so no hit, and nothing is taken.
  allowance = 1000;
  EXPECT_NE(snap->find(a.data(), a.data() + a.size(), allowance), nullptr);
  EXPECT_EQ(allowance, 1000u);
  allowance = 999;
  EXPECT_EQ(snap->find(a.data(), a.data() + a.size(), allowance), nullptr);
  EXPECT_EQ(allowance, 999u);
  // A miss on the key costs nothing either.
  const std::string b = node_text("node-b", 'x', 1000);
  EXPECT_EQ(snap->find(b.data(), b.data() + b.size(), allowance), nullptr);
  EXPECT_EQ(allowance, 999u);
}

TEST(NodeObjectCache, TwoCachesMatchTheSameTextsWithSeedsOfTheirOwn) {
  const std::string a = node_text("node-a");
  NodeObjectCache one(1 << 20);
  NodeObjectCache two(1 << 20);
  remember(one, {a});
  remember(two, {a});
  ASSERT_NE(find_in(*one.snapshot(), a), nullptr);
  ASSERT_NE(find_in(*two.snapshot(), a), nullptr);
  EXPECT_NE(find_in(*one.snapshot(), a)->digest, find_in(*two.snapshot(), a)->digest);
}

TEST(NodeObjectCache, KeepsNoTextShorterThanItsKey) {
  NodeObjectCache cache(1 << 20);
  remember(cache, {R"({"metadata":{"name":"small"}})",
                   node_text("edge", 'x', NodeObjectCache::kKeyBytes - 1)});
  EXPECT_EQ(cache.snapshot()->size(), 0u);
  remember(cache, {node_text("edge", 'x', NodeObjectCache::kKeyBytes)});
  EXPECT_EQ(cache.snapshot()->size(), 1u);
}

TEST(NodeObjectCache, ANodesNewTextReplacesItsOldOneButNotInAnEarlierSnapshot) {
  NodeObjectCache cache(1 << 20);
  const std::string v1 = node_text("node-a", 'x');
  const std::string v2 = node_text("node-a", 'z');
  remember(cache, {v1, node_text("node-b")});
  const auto before = cache.snapshot();
  remember(cache, {v2});
  const auto after = cache.snapshot();
  EXPECT_EQ(after->size(), 2u);
  EXPECT_EQ(find_in(*after, v1), nullptr);
  ASSERT_NE(find_in(*after, v2), nullptr);
  EXPECT_NE(find_in(*after, node_text("node-b")), nullptr);
  // A call still holding the earlier snapshot keeps its entries.
  ASSERT_NE(find_in(*before, v1), nullptr);
  EXPECT_EQ(find_in(*before, v1)->model.annotation("pad")->front(), 'x');
  EXPECT_EQ(find_in(*before, v2), nullptr);
}

TEST(NodeObjectCache, TheSameTextTwiceIsOneEntryAndNoNewSnapshot) {
  NodeObjectCache cache(1 << 20);
  const std::string a = node_text("node-a");
  remember(cache, {a, a});
  const auto first = cache.snapshot();
  EXPECT_EQ(first->size(), 1u);
  remember(cache, {a});
  EXPECT_EQ(cache.snapshot(), first);
}

TEST(NodeObjectCache, BeyondTheBudgetTheOldestGoFirst) {
  const std::string a = node_text("node-a");
  const std::string b = node_text("node-b");
  const std::string c = node_text("node-c");
  // Room for two entries of this size.
  NodeObjectCache cache(2 * NodeObjectCache::cost_of(a.size()));
  remember(cache, {a, b});
  EXPECT_EQ(cache.snapshot()->bytes(), 2 * NodeObjectCache::cost_of(a.size()));
  remember(cache, {c});
  const auto snap = cache.snapshot();
  EXPECT_EQ(snap->size(), 2u);
  EXPECT_EQ(find_in(*snap, a), nullptr);
  EXPECT_NE(find_in(*snap, b), nullptr);
  EXPECT_NE(find_in(*snap, c), nullptr);
  // A text larger than the whole budget is not kept.
  remember(cache, {node_text("node-d", 'x', 2 * NodeObjectCache::cost_of(a.size()))});
  EXPECT_EQ(cache.snapshot(), snap);
}

TEST(NodeObjectCache, AZeroBudgetKeepsNothing) {
  NodeObjectCache cache(0);
  remember(cache, {node_text("node-a")});
  EXPECT_EQ(cache.snapshot()->size(), 0u);
}

TEST(NodeObjectCache, NodesSharingTheirKeyAreKeptUpToTheBoundNewestFirst) {
  // The first kKeyBytes of these texts are the same: the names come after.
  const auto text = [](int i) {
    return R"({"metadata":{"annotations":{"pad":")" + std::string(NodeObjectCache::kKeyBytes, 'p') +
           R"("},"name":"node-)" + std::to_string(i) + R"("}})";
  };
  NodeObjectCache cache(1 << 20);
  std::vector<std::string> texts;
  for (int i = 0; i < 6; ++i)
    texts.push_back(text(i));
  remember(cache, texts);
  const auto snap = cache.snapshot();
  ASSERT_EQ(snap->size(), NodeObjectCache::kMaxPerKey);
  EXPECT_EQ(find_in(*snap, texts[0]), nullptr);
  EXPECT_EQ(find_in(*snap, texts[1]), nullptr);
  for (size_t i = 2; i < 6; ++i) {
    ASSERT_NE(find_in(*snap, texts[i]), nullptr) << i;
    EXPECT_EQ(find_in(*snap, texts[i])->model.name(), "node-" + std::to_string(i));
  }
}

TEST(NodeObjectCache, ReadersKeepTheirSnapshotsWhileWritersReplaceEntries) {
  // Two versions of eight nodes; writers keep switching between them and
  // readers look both up in whatever snapshot they hold. A budget for six
  // entries makes writers evict too.
  std::vector<std::string> texts;
  for (int v = 0; v < 2; ++v) {
    for (int n = 0; n < 8; ++n)
      texts.push_back(node_text("node-" + std::to_string(n), v == 0 ? 'x' : 'y'));
  }
  NodeObjectCache cache(6 * NodeObjectCache::cost_of(texts[0].size()));
  remember(cache, {texts[0], texts[1], texts[2]});
  std::atomic<size_t> hits{0};
  std::atomic<bool> wrong{false};
  std::atomic<int> writing{2};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      for (int round = 0; round < 200; ++round) {
        const size_t version = static_cast<size_t>((round + w) % 2);
        std::vector<NodeObjectCache::Fresh> batch;
        for (size_t n = 0; n < 8; n += 1 + static_cast<size_t>(round % 3))
          batch.push_back(fresh(texts[version * 8 + n]));
        cache.remember(std::move(batch));
      }
      --writing;
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      // As long as the writers write (and at most 100,000 rounds).
      for (int round = 0; round < 100'000 && (round < 10 || writing > 0); ++round) {
        const auto snap = cache.snapshot();
        for (const std::string& t : texts) {
          const NodeObjectCache::Entry* e = find_in(*snap, t);
          if (e == nullptr)
            continue;
          ++hits;
          // The last padding byte tells the two versions apart.
          if (e->size != t.size() || e->model.name() != t.substr(21, 6) ||
              e->model.annotation("pad")->back() != t[t.size() - 5])
            wrong = true;
        }
        if (snap->size() > 6 || snap->bytes() > cache.budget())
          wrong = true;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  EXPECT_FALSE(wrong);
  EXPECT_GT(hits.load(), 0u);
}

}  // namespace
