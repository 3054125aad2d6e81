// The JSON registration decoder's `custominfo` (HAMi's DeviceInfo.CustomInfo,
// a Go map[string]any): the vendor data Ascend (NetworkID) and Vastai
// (DeviceStrategy, AIC) register per device.
#include <gtest/gtest.h>

#include <string>

#include "errors.hpp"
#include "node_register.hpp"

namespace hami::devices {
namespace {

using Kind = RegisteredCustomValue::Kind;

TEST(RegisterCustomInfo, ScalarMembersAreKeptInDocumentOrder) {
  const auto decoded = decode_register_json(
      R"([{"id":"va0-die1","count":1,"type":"Vastai","health":true,)"
      R"("custominfo":{"DeviceStrategy":"die","AIC":"0","NetworkID":1,"ok":true,"gone":null}}])");
  ASSERT_EQ(decoded.devices().size(), 1u);
  const RegisteredDevice& d = decoded.devices()[0];
  ASSERT_EQ(d.custom_info.size(), 5u);
  EXPECT_EQ(d.custom_info[0].key, "DeviceStrategy");
  EXPECT_EQ(d.custom_info[0].kind, Kind::String);
  EXPECT_EQ(d.custom_info[0].text, "die");
  EXPECT_EQ(d.custom("AIC")->text, "0");
  EXPECT_EQ(d.custom("NetworkID")->kind, Kind::Number);
  EXPECT_EQ(d.custom("NetworkID")->number, 1.0);
  EXPECT_EQ(d.custom("ok")->kind, Kind::Bool);
  EXPECT_TRUE(d.custom("ok")->boolean);
  EXPECT_EQ(d.custom("gone")->kind, Kind::Null);
  // Map keys are exact, unlike struct tags.
  EXPECT_EQ(d.custom("aic"), nullptr);
  // The device's own fields are unaffected.
  EXPECT_EQ(d.id, "va0-die1");
  EXPECT_EQ(d.count, 1);
  EXPECT_TRUE(d.health);
}

TEST(RegisterCustomInfo, NumbersAreFloat64AsGoDecodesThem) {
  const auto decoded = decode_register_json(
      R"([{"id":"a","custominfo":{"f":1.5,"big":18446744073709551615,"neg":-3}}])");
  const RegisteredDevice& d = decoded.devices()[0];
  EXPECT_EQ(d.custom("f")->number, 1.5);
  EXPECT_EQ(d.custom("big")->number, 18446744073709551615.0);
  EXPECT_EQ(d.custom("neg")->number, -3.0);
}

TEST(RegisterCustomInfo, NestedValuesAreOtherAndSkippedWithoutLosingTheDevice) {
  const auto decoded = decode_register_json(
      R"([{"id":"a","custominfo":{"n":{"x":[1,{"y":null}]},"l":[],"AIC":"7"},"count":3},)"
      R"({"id":"b"}])");
  ASSERT_EQ(decoded.devices().size(), 2u);
  const RegisteredDevice& d = decoded.devices()[0];
  ASSERT_EQ(d.custom_info.size(), 3u);
  EXPECT_EQ(d.custom("n")->kind, Kind::Other);
  EXPECT_EQ(d.custom("l")->kind, Kind::Other);
  EXPECT_EQ(d.custom("AIC")->text, "7");
  EXPECT_EQ(d.count, 3);
  EXPECT_TRUE(decoded.devices()[1].custom_info.empty());
}

TEST(RegisterCustomInfo, KeyIsCaseInsensitiveNullAndEmptyMeanNone) {
  const auto upper = decode_register_json(R"([{"id":"a","CustomInfo":{"k":"v"}}])");
  EXPECT_EQ(upper.devices()[0].custom("k")->text, "v");
  const auto null =
      decode_register_json(R"([{"id":"a","custominfo":{"k":"v"},"custominfo":null}])");
  EXPECT_TRUE(null.devices()[0].custom_info.empty());
  const auto empty = decode_register_json(R"([{"id":"a","custominfo":{}}])");
  EXPECT_TRUE(empty.devices()[0].custom_info.empty());
}

TEST(RegisterCustomInfo, ANonObjectIsAnErrorNamingTheKey) {
  for (const std::string value : {R"("die")", "1", "true", "[]"}) {
    try {
      (void)decode_register_json(R"([{"id":"a","custominfo":)" + value + "}]");
      ADD_FAILURE() << value << " was accepted";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("element 0 key \"custominfo\": unexpected"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace hami::devices
