// hami/policy_text.hpp: the policy-text grammar the host and the policy
// plugins share.
#include "hami/policy_text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  hami::for_each_policy_word(text, [&](std::string_view w) {
    out.emplace_back(w);
    return true;
  });
  return out;
}

TEST(PolicyText, WordsAreTrimmedAndEmptyWordsKept) {
  EXPECT_EQ(words("binpack"), (std::vector<std::string>{"binpack"}));
  EXPECT_EQ(words(" binpack ,\tnuma\r\n"), (std::vector<std::string>{"binpack", "numa"}));
  EXPECT_EQ(words("a,,b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(words("a,"), (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(words(""), (std::vector<std::string>{""}));
  EXPECT_EQ(words(","), (std::vector<std::string>{"", ""}));
}

TEST(PolicyText, AFalseFromTheCallbackStopsTheWalk) {
  int calls = 0;
  EXPECT_FALSE(hami::for_each_policy_word("a,b,c", [&](std::string_view w) {
    ++calls;
    return w != "b";
  }));
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(hami::for_each_policy_word("a,c", [](std::string_view w) { return w != "b"; }));
}

TEST(PolicyText, FirstWordAndTrim) {
  EXPECT_EQ(hami::first_policy_word("binpack, numa"), "binpack");
  EXPECT_EQ(hami::first_policy_word("  spread  "), "spread");
  EXPECT_EQ(hami::first_policy_word(",spread"), "");
  EXPECT_EQ(hami::trim_policy_word(" \t\r\n"), "");
  EXPECT_EQ(hami::trim_policy_word(" a b "), "a b");
  static_assert(hami::first_policy_word("mutex,spread") == "mutex");
}

}  // namespace
