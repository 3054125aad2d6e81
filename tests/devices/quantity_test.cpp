// hami/quantity.hpp: the apimachinery quantity grammar and AsInt64/Value
// semantics HAMi's request parsing depends on (§5.1).
#include "hami/quantity.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace hami {
namespace {

std::optional<std::int64_t> as_int(const char* text) {
  const auto q = Quantity::parse(text);
  return q ? q->as_int64() : std::nullopt;
}

std::optional<std::int64_t> ceil_of(const char* text) {
  const auto q = Quantity::parse(text);
  return q ? q->ceil_int64() : std::nullopt;
}

TEST(Quantity, ExactIntegers) {
  EXPECT_EQ(as_int("4000"), 4000);
  EXPECT_EQ(as_int("0"), 0);
  EXPECT_EQ(as_int("-7"), -7);
  EXPECT_EQ(as_int("+7"), 7);
  EXPECT_EQ(as_int("4k"), 4000);
  EXPECT_EQ(as_int("1M"), 1000000);
  EXPECT_EQ(as_int("2G"), 2000000000);
  EXPECT_EQ(as_int("1E"), 1000000000000000000);
  EXPECT_EQ(as_int("10Gi"), 10737418240);
  EXPECT_EQ(as_int("1Ki"), 1024);
  EXPECT_EQ(as_int("0.5Ki"), 512);
  EXPECT_EQ(as_int("1.0"), 1);
  EXPECT_EQ(as_int("1.50k"), 1500);
  EXPECT_EQ(as_int("2000m"), 2);
  EXPECT_EQ(as_int("5e3"), 5000);
  EXPECT_EQ(as_int("5E3"), 5000);
  EXPECT_EQ(as_int("5e+3"), 5000);
  EXPECT_EQ(as_int("5000e-3"), 5);
  EXPECT_EQ(as_int("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(as_int("-9223372036854775808"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(as_int("007"), 7);
  EXPECT_EQ(as_int("-0"), 0);
}

TEST(Quantity, NotIntegersOrOutOfRange) {
  EXPECT_EQ(as_int("1.5"), std::nullopt);
  EXPECT_EQ(as_int("100m"), std::nullopt);
  EXPECT_EQ(as_int("1n"), std::nullopt);
  EXPECT_EQ(as_int("1e-3"), std::nullopt);
  EXPECT_EQ(as_int("9223372036854775808"), std::nullopt);
  EXPECT_EQ(as_int("8Ei"), std::nullopt);  // 2^63
  EXPECT_EQ(as_int("1e19"), std::nullopt);
  EXPECT_EQ(as_int("1e2147483647"), std::nullopt);
  EXPECT_TRUE(Quantity::parse("1e2147483647")->is_integer());
  EXPECT_FALSE(Quantity::parse("1.5")->is_integer());
  EXPECT_TRUE(Quantity::parse("1500m")->is_integer() == false);
  EXPECT_TRUE(Quantity::parse("3000m")->is_integer());
  EXPECT_FALSE(Quantity::parse("1e-2147483648")->is_integer());
}

TEST(Quantity, Grammar) {
  for (const char* bad :
       {"",   " 1",  "1 ",   "-",  "+",    ".",     "1..2", "1.2.3", "1K",  "1ki", "1Mb",
        "1e", "1e+", "1ee3", "1i", "0x10", "1,000", "abc",  "1e3.5", "--1", "1Gi1"}) {
    EXPECT_FALSE(Quantity::parse(bad).has_value()) << '"' << bad << '"';
  }
  for (const char* good :
       {"1", ".5", "5.", "1.5Gi", "100m", "3u", "7n", "1P", "2T", "1Ei", "1e-9", "+.5"}) {
    EXPECT_TRUE(Quantity::parse(good).has_value()) << good;
  }
  EXPECT_EQ(Quantity::parse("1Gi")->format(), QuantityFormat::BinarySI);
  EXPECT_EQ(Quantity::parse("1G")->format(), QuantityFormat::DecimalSI);
  EXPECT_EQ(Quantity::parse("1e9")->format(), QuantityFormat::DecimalExponent);
  EXPECT_EQ(Quantity::parse(std::string(513, '1')), std::nullopt);
}

TEST(Quantity, CeilingLikeValue) {
  EXPECT_EQ(ceil_of("1.5"), 2);
  EXPECT_EQ(ceil_of("100m"), 1);
  EXPECT_EQ(ceil_of("-1.5"), -1);
  EXPECT_EQ(ceil_of("5"), 5);
  EXPECT_EQ(ceil_of("1e-2147483648"), 1);
  EXPECT_EQ(ceil_of("1e30"), std::nullopt);
  EXPECT_TRUE(Quantity::parse("0.000")->is_zero());
  EXPECT_FALSE(Quantity::parse("-0")->negative());
}

}  // namespace
}  // namespace hami
