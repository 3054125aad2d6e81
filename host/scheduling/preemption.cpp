#include "scheduling/preemption.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <utility>

namespace hami::scheduling {

namespace {

constexpr int64_t kPriorityOffset = int64_t{1} << 31;

// One candidate class: its members (candidate indexes) and their rank.
struct Class {
  std::vector<size_t> members;
  VictimRank rank;
};

// A set of candidates as how many of each class it takes (a prefix of the
// class's members).
using Counts = std::vector<uint32_t>;

// A victim set's key, kept as it grows one pod at a time.
struct KeyState {
  int64_t highest = std::numeric_limits<int64_t>::min();
  int64_t earliest = VictimRank::kNotStarted;  // of the victims at `highest`
  int64_t sum = 0;
  size_t count = 0;

  void add(const VictimRank& v) {
    sum += int64_t{v.priority} + kPriorityOffset;
    ++count;
    if (v.priority > highest) {
      highest = v.priority;
      earliest = v.start;
    } else if (v.priority == highest) {
      earliest = std::min(earliest, v.start);
    }
  }
  VictimSetKey key() const {
    return {highest, sum, count, count == 0 ? std::numeric_limits<int64_t>::min() : -earliest};
  }
};

// A set in the walk: how many of each class it takes; `last` is the highest
// class it takes any of (its parent has one fewer there), so every set is
// made exactly once, by growing only classes from `last` on.
struct Node {
  VictimSetKey key;
  KeyState state;
  Counts counts;
  size_t last = 0;
};

struct Worse {
  bool operator()(const Node& a, const Node& b) const { return a.key > b.key; }
};

}  // namespace

VictimSetKey victim_set_key(std::span<const VictimRank> victims) {
  KeyState state;
  for (const VictimRank& v : victims)
    state.add(v);
  return state.key();
}

bool more_important(const VictimRank& a, const VictimRank& b) {
  if (a.priority != b.priority)
    return a.priority > b.priority;
  return a.start < b.start;
}

VictimChoice choose_victims(const VictimSearch& search) {
  VictimChoice out;
  const size_t n = search.candidates.size();
  const auto fits = [&](std::span<const size_t> chosen) {
    ++out.fit_calls;
    return search.fits(chosen);
  };
  if (fits({})) {
    out.found = true;
    out.exact = true;
    return out;
  }
  if (n == 0)
    return out;
  std::vector<size_t> all(n);
  std::iota(all.begin(), all.end(), size_t{0});
  if (!fits(all))
    return out;  // even every candidate removed does not let the pod fit
  out.found = true;

  // The lowest level: all candidates of priority up to it removed fit.
  std::vector<int32_t> levels;
  for (const VictimRank& c : search.candidates)
    levels.push_back(c.priority);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  int32_t level = levels.back();
  for (size_t l = 0; l + 1 < levels.size(); ++l) {
    std::vector<size_t> upto;
    for (size_t i = 0; i < n; ++i) {
      if (search.candidates[i].priority <= levels[l])
        upto.push_back(i);
    }
    if (fits(upto)) {
      level = levels[l];
      break;
    }
  }
  // Pods up to the kept victims' highest priority cost no more in the first
  // key than those up to the level.
  int32_t cap = level;
  for (const VictimRank& k : search.kept)
    cap = std::max(cap, k.priority);
  std::vector<size_t> allowed;
  for (size_t i = 0; i < n; ++i) {
    if (search.candidates[i].priority <= cap)
      allowed.push_back(i);
  }

  // kube-scheduler's reprieve: all allowed removed, then each put back,
  // most important first, when the pod still fits without it.
  const auto reprieve = [&] {
    std::vector<size_t> greedy = allowed;
    std::vector<size_t> order = allowed;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return more_important(search.candidates[a], search.candidates[b]);
    });
    for (const size_t i : order) {
      std::vector<size_t> without;
      for (const size_t g : greedy) {
        if (g != i)
          without.push_back(g);
      }
      if (fits(without))
        greedy = std::move(without);
    }
    std::sort(greedy.begin(), greedy.end());
    return greedy;
  };

  // The classes of the allowed candidates.
  std::vector<Class> classes;
  {
    std::map<size_t, size_t> index;  // class id -> position in `classes`
    for (const size_t i : allowed) {
      const size_t id = search.class_of.empty() ? i : search.class_of[i];
      const auto [it, added] = index.emplace(id, classes.size());
      if (added)
        classes.push_back({{}, search.candidates[i]});
      classes[it->second].members.push_back(i);
    }
  }
  const auto members_of = [&](const Counts& counts) {
    std::vector<size_t> chosen;
    for (size_t c = 0; c < classes.size(); ++c) {
      for (uint32_t k = 0; k < counts[c]; ++k)
        chosen.push_back(classes[c].members[k]);
    }
    std::sort(chosen.begin(), chosen.end());
    return chosen;
  };

  // Every set is walked in increasing key order: adding a pod always
  // increases the key (the count, if nothing before it), so the first set
  // that fits is the smallest one. The set of every allowed pod fits, so
  // the walk ends, unless the budget does first: then the reprieve answers.
  const size_t budget_end = out.fit_calls + search.budget;
  std::priority_queue<Node, std::vector<Node>, Worse> queue;
  const auto grow = [&](const Node& from) {
    for (size_t c = from.last; c < classes.size(); ++c) {
      if (from.counts[c] < classes[c].members.size()) {
        Node next{{}, from.state, from.counts, c};
        ++next.counts[c];
        next.state.add(classes[c].rank);
        next.key = next.state.key();
        queue.push(std::move(next));
      }
    }
  };
  Node none{{}, {}, Counts(classes.size(), 0), 0};
  for (const VictimRank& k : search.kept)
    none.state.add(k);
  grow(none);  // the empty set was tried first
  while (!queue.empty() && out.fit_calls < budget_end) {
    const Node node = queue.top();
    queue.pop();
    std::vector<size_t> chosen = members_of(node.counts);
    if (fits(chosen)) {
      out.chosen = std::move(chosen);
      out.exact = true;
      return out;
    }
    grow(node);
  }
  out.chosen = reprieve();
  return out;
}

}  // namespace hami::scheduling
