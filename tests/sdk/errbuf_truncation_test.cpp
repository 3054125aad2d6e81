// HAMI-PLUGIN-4 at the raw ABI: a failing call with an error buffer of
// capacity 0 writes nothing, capacity 1 writes only the terminator, and a
// small buffer gets a truncated, terminated message — for a C plugin and
// for the C++ wrapper's barrier alike.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <ostream>
#include <string>

#include "fixture_paths.h"
#include "raw_plugin.hpp"

namespace hami::test {
namespace {

struct Case {
  const char* fixture;
  const char* config;   // makes create fail
  const char* message;  // the full message create writes
  hami_status status;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.fixture << " with config " << c.config;
}

class ErrbufTruncation : public ::testing::TestWithParam<Case> {
 protected:
  RawPlugin plugin_{std::filesystem::path(HAMI_FIXTURE_PLUGIN_DIR) / GetParam().fixture};

  hami_status create(hami_errbuf err) {
    const hami_host_info host = RawPlugin::host_info();
    const std::string config = GetParam().config;
    hami_instance* instance = nullptr;
    const hami_status status =
        plugin_.header().create(&host, hami_str{config.data(), config.size()}, &instance, err);
    EXPECT_EQ(instance, nullptr);
    return status;
  }
};

TEST_P(ErrbufTruncation, CapacityZeroWritesNothing) {
  std::array<char, 8> buf;
  buf.fill('#');
  EXPECT_EQ(create(hami_errbuf{buf.data(), 0}), GetParam().status);
  EXPECT_EQ(std::string(buf.data(), buf.size()), "########");
  EXPECT_EQ(create(hami_errbuf{nullptr, 0}), GetParam().status);
}

TEST_P(ErrbufTruncation, CapacityOneWritesOnlyTheTerminator) {
  std::array<char, 8> buf;
  buf.fill('#');
  EXPECT_EQ(create(hami_errbuf{buf.data(), 1}), GetParam().status);
  EXPECT_EQ(buf[0], '\0');
  EXPECT_EQ(std::string(buf.data() + 1, buf.size() - 1), "#######");
}

TEST_P(ErrbufTruncation, SmallCapacityTruncatesAndTerminates) {
  std::array<char, 12> buf;
  buf.fill('#');
  EXPECT_EQ(create(hami_errbuf{buf.data(), 6}), GetParam().status);
  EXPECT_EQ(std::string(buf.data()), std::string(GetParam().message).substr(0, 5));
  EXPECT_EQ(std::string(buf.data() + 6, 6), "######");
}

TEST_P(ErrbufTruncation, LargeCapacityGetsTheWholeMessage) {
  std::array<char, 256> buf;
  buf.fill('#');
  EXPECT_EQ(create(hami_errbuf{buf.data(), buf.size()}), GetParam().status);
  EXPECT_EQ(std::string(buf.data()), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, ErrbufTruncation,
    ::testing::Values(Case{HAMI_FIXTURE_C_DEVICE, "[]", "c_device: config must be a JSON object",
                           HAMI_INVALID_ARGUMENT},
                      Case{HAMI_FIXTURE_CREATE_FAILS, "{}",
                           "create_fails: this fixture never creates an instance",
                           HAMI_INVALID_ARGUMENT},
                      Case{HAMI_FIXTURE_THROWS_DEVICE, R"({"throwIn": "create"})",
                           "throws_everywhere: create threw", HAMI_INTERNAL}),
    [](const ::testing::TestParamInfo<Case>& param) {
      std::string name = param.param.fixture;
      return name.substr(0, name.find('.'));
    });

}  // namespace
}  // namespace hami::test
