// FileTokenSource: periodic re-read, invalidate(), last good token kept.
#include "kube/token_source.hpp"

#include <gtest/gtest.h>

#include "kube/api_config.hpp"
#include "temp_dir.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

class FileToken : public ::testing::Test {
 protected:
  FileTokenSource::Clock clock() {
    return [this] { return now_; };
  }
  TempDir dir_;
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
};

TEST_F(FileToken, TrimsTrailingWhitespace) {
  const auto file = dir_.write("token", "abc.def \r\n\n");
  FileTokenSource source(file, 60s, clock());
  EXPECT_EQ(source.token(), "abc.def");
}

TEST_F(FileToken, ReReadsOnlyAfterThePeriod) {
  const auto file = dir_.write("token", "first\n");
  FileTokenSource source(file, 60s, clock());
  dir_.write("token", "second\n");
  now_ += 59s;
  EXPECT_EQ(source.token(), "first");
  now_ += 1s;
  EXPECT_EQ(source.token(), "second");
  dir_.write("token", "third\n");
  now_ += 30s;
  EXPECT_EQ(source.token(), "second");
}

TEST_F(FileToken, InvalidateReReadsAtOnce) {
  const auto file = dir_.write("token", "first\n");
  FileTokenSource source(file, 60s, clock());
  dir_.write("token", "rotated\n");
  EXPECT_EQ(source.token(), "first");
  source.invalidate();
  EXPECT_EQ(source.token(), "rotated");
}

TEST_F(FileToken, KeepsTheLastGoodTokenWhenAReadFails) {
  const auto file = dir_.write("token", "good\n");
  FileTokenSource source(file, 60s, clock());
  std::filesystem::remove(file);
  now_ += 61s;
  EXPECT_EQ(source.token(), "good");
  dir_.write("token", " \n");  // a rewrite in progress: blank
  source.invalidate();
  EXPECT_EQ(source.token(), "good");
  dir_.write("token", "new\n");
  source.invalidate();
  EXPECT_EQ(source.token(), "new");
}

TEST_F(FileToken, ConstructionNeedsAToken) {
  EXPECT_THROW(FileTokenSource(dir_.path() / "missing"), ApiConfigError);
  const auto empty = dir_.write("empty", "\n");
  EXPECT_THROW(FileTokenSource(empty, 60s, clock()), ApiConfigError);
}

TEST(StaticToken, ReturnsItsToken) {
  StaticTokenSource source("t0k");
  source.invalidate();
  EXPECT_EQ(source.token(), "t0k");
}

}  // namespace
}  // namespace hami::kube
