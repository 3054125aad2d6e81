// Handles check what plugins return: garbage status codes, missing or
// unterminated messages, picks out of range, non-permutations, scores out
// of range and strings that break the ABI all become PluginCallError.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixture_paths.h"
#include "load_error.hpp"
#include "plugin_test_support.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_loader.hpp"
#include "plugins/plugin_text.hpp"

namespace hami::test {
namespace {

using ::testing::HasSubstr;

hami_node_usage node_usage() {
  hami_node_usage usage{};
  usage.struct_size = sizeof usage;
  return usage;
}

std::string lie(const char* mode) {
  return std::string(R"({"lie": ")") + mode + "\"}";
}

// A pod with one container, a node, and four devices to fit against.
struct Inputs {
  hami_container_view container{
      sizeof(hami_container_view), {"main", 4}, 0, 0, nullptr, 0, nullptr, 0, nullptr, 0};
  hami_pod_view pod{};
  hami_node_view node{};
  std::array<hami_device, 4> devices{};
  std::array<hami_device_usage, 4> usage{};
  hami_device_request request{sizeof(hami_device_request), 2, 0, 0, 0, 0};
  hami_fit_input fit{};
  std::array<hami_fit_pick, 2> picks{};

  Inputs() {
    pod.struct_size = sizeof pod;
    pod.containers = &container;
    pod.containers_len = 1;
    node.struct_size = sizeof node;
    for (size_t i = 0; i < devices.size(); ++i) {
      devices[i].struct_size = sizeof(hami_device);
      devices[i].count = 10;
      usage[i].struct_size = sizeof(hami_device_usage);
      usage[i].device = &devices[i];
    }
    fit.struct_size = sizeof fit;
    fit.pod = &pod;
    fit.request = &request;
    fit.devices = usage.data();
    fit.devices_len = usage.size();
  }
  Inputs(const Inputs&) = delete;
  Inputs& operator=(const Inputs&) = delete;
};

class HandleValidation : public ::testing::Test {
 protected:
  host::DevicePluginHandle device(const char* mode) {
    dir_.add(HAMI_FIXTURE_LIAR_DEVICE);
    return host::load_device_plugin(
        dir_.options(), spec("liar", HAMI_FIXTURE_LIAR_DEVICE, HAMI_KIND_DEVICE, lie(mode)),
        recorder_.services());
  }
  host::SchedulingPluginHandle scheduling(const char* mode) {
    dir_.add(HAMI_FIXTURE_LIAR_SCHEDULING);
    return host::load_scheduling_plugin(
        dir_.options(), spec("liar", HAMI_FIXTURE_LIAR_SCHEDULING, HAMI_KIND_SCHEDULING, lie(mode)),
        recorder_.services());
  }
  host::AdmissionPluginHandle admission(const char* mode) {
    dir_.add(HAMI_FIXTURE_LIAR_ADMISSION);
    return host::load_admission_plugin(
        dir_.options(), spec("liar", HAMI_FIXTURE_LIAR_ADMISSION, HAMI_KIND_ADMISSION, lie(mode)),
        recorder_.services());
  }

  TempPluginDir dir_;
  RecordingServices recorder_;
  Inputs in_;
};

TEST_F(HandleValidation, HonestLiarPassesEveryCheck) {
  const auto handle = device("none");
  const auto fit = handle.fit(in_.fit, in_.picks);
  EXPECT_TRUE(fit.fits);
  EXPECT_EQ(fit.picks_len, 2u);
  EXPECT_EQ(handle.decode_node(in_.node).devices.size(), 1u);
  EXPECT_EQ(handle.decode_allocation("x").size(), 1u);
}

TEST_F(HandleValidation, UnknownStatusIsInternal) {
  const auto handle = device("garbage_status");
  const auto e = call_error([&] { (void)handle.node_health(in_.node, 0); });
  EXPECT_EQ(e.status(), HAMI_INTERNAL);
  EXPECT_STREQ(e.what(), "liar.node_health: returned unknown status 999 and no message");
}

TEST_F(HandleValidation, NegativeStatusIsInternalWithTheMessage) {
  const auto handle = device("negative_status");
  const auto e = call_error([&] { (void)handle.mutate_container(in_.pod, 0); });
  EXPECT_EQ(e.status(), HAMI_INTERNAL);
  EXPECT_STREQ(e.what(), "liar.mutate_container: returned unknown status -7: negative status");
}

TEST_F(HandleValidation, MissingMessageIsReported) {
  const auto handle = device("no_message");
  const auto e = call_error([&] { (void)handle.decode_node(in_.node); });
  EXPECT_EQ(e.status(), HAMI_NOT_FOUND);
  EXPECT_STREQ(e.what(), "liar.decode_node: failed with NOT_FOUND and no message");
}

TEST_F(HandleValidation, UnterminatedMessageIsCutAtTheBuffer) {
  const auto handle = device("unterminated");
  const auto e = call_error([&] { (void)handle.encode_allocation({}); });
  EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
  const std::string prefix = "liar.encode_allocation: ";
  ASSERT_THAT(e.what(), ::testing::StartsWith(prefix));
  EXPECT_EQ(std::string(e.what()).size(), prefix.size() + 1024u);
}

TEST_F(HandleValidation, RequestInvalidArgumentIsAWarningNotAnError) {
  const auto handle = device("unterminated");
  const auto result = handle.container_request(in_.pod, 0);
  EXPECT_EQ(result.request.count, 0);
  EXPECT_EQ(result.warning, std::string(1024, 'x'));
}

TEST_F(HandleValidation, PickOutOfRange) {
  const auto handle = device("pick_out_of_range");
  const auto e = call_error([&] { (void)handle.fit(in_.fit, in_.picks); });
  EXPECT_EQ(e.status(), HAMI_INTERNAL);
  EXPECT_THAT(e.what(), HasSubstr("liar.fit: invalid output: pick 0 names device index 4 but "
                                  "only 4 devices were offered"));
}

TEST_F(HandleValidation, SameDevicePickedTwice) {
  const auto handle = device("pick_twice");
  const auto e = call_error([&] { (void)handle.fit(in_.fit, in_.picks); });
  EXPECT_THAT(e.what(), HasSubstr("device index 0 is picked twice"));
}

TEST_F(HandleValidation, FitWithTooFewPicks) {
  const auto handle = device("fits_short");
  const auto e = call_error([&] { (void)handle.fit(in_.fit, in_.picks); });
  EXPECT_THAT(e.what(), HasSubstr("reports a fit with 0 picks for a request of 2"));
}

TEST_F(HandleValidation, MorePicksThanCapacity) {
  const auto handle = device("picks_overflow");
  const auto e = call_error([&] { (void)handle.fit(in_.fit, in_.picks); });
  EXPECT_THAT(e.what(), HasSubstr("picks_len 3 exceeds picks_cap 2"));
}

TEST_F(HandleValidation, NullStringWithLength) {
  const auto handle = device("null_string");
  const auto e = call_error([&] { (void)handle.decode_node(in_.node); });
  EXPECT_EQ(e.status(), HAMI_INTERNAL);
  EXPECT_THAT(e.what(), HasSubstr("liar.decode_node: invalid output: device id is NULL with "
                                  "length 5"));
}

TEST_F(HandleValidation, UndersizedDeviceStruct) {
  const auto handle = device("small_device");
  const auto e = call_error([&] { (void)handle.decode_node(in_.node); });
  EXPECT_THAT(e.what(), HasSubstr("hami_device.struct_size 4 is smaller than ABI 1.0's"));
}

TEST_F(HandleValidation, NegativeRequest) {
  const auto handle = device("bad_request");
  const auto e = call_error([&] { (void)handle.container_request(in_.pod, 0); });
  EXPECT_THAT(e.what(), HasSubstr("request out of range (count -1"));
}

TEST_F(HandleValidation, AllocationDeviceBeforeContainer) {
  const auto handle = device("device_first");
  const auto e = call_error([&] { (void)handle.decode_allocation("x"); });
  EXPECT_THAT(e.what(), HasSubstr("a device was reported before any container segment"));
}

TEST_F(HandleValidation, HostMisuseIsNotBlamedOnThePlugin) {
  const auto handle = device("none");
  EXPECT_THROW((void)handle.mutate_container(in_.pod, 1), std::invalid_argument);
  EXPECT_THROW((void)handle.container_request(in_.pod, 7), std::invalid_argument);
  EXPECT_THROW((void)handle.fit(in_.fit, std::span<hami_fit_pick>(in_.picks.data(), 1)),
               std::invalid_argument);
}

TEST_F(HandleValidation, ScoreAboveRange) {
  const auto handle = scheduling("score_high");
  const auto e = call_error([&] { (void)handle.score_node("lying", in_.pod, node_usage()); });
  EXPECT_EQ(e.status(), HAMI_INTERNAL);
  EXPECT_THAT(e.what(), HasSubstr("liar.score_node: invalid output: score 150.000000 is outside "
                                  "[0, 100]"));
}

TEST_F(HandleValidation, ScoreBelowRangeAndNaN) {
  EXPECT_THAT(call_error([&] {
                (void)scheduling("score_negative").score_node("lying", in_.pod, node_usage());
              }).what(),
              HasSubstr("is outside [0, 100]"));
  EXPECT_THAT(call_error([&] {
                (void)scheduling("score_nan").score_node("lying", in_.pod, node_usage());
              }).what(),
              HasSubstr("is outside [0, 100]"));
}

TEST_F(HandleValidation, ScoreInRangeIsReturned) {
  EXPECT_EQ(scheduling("none").score_node("lying", in_.pod, node_usage()), 50.0);
}

hami_order_input order_input(const Inputs& in, std::vector<hami_order_device>& devices) {
  for (const auto& u : in.usage) {
    devices.push_back(hami_order_device{sizeof(hami_order_device), &u, 0.0});
  }
  return hami_order_input{
      sizeof(hami_order_input), {"lying", 5}, &in.pod, devices.data(), devices.size()};
}

TEST_F(HandleValidation, OrderIsReturnedWhenAPermutation) {
  std::vector<hami_order_device> devices;
  const auto order = scheduling("none").order_devices(order_input(in_, devices));
  EXPECT_THAT(order.order, ::testing::ElementsAre(3u, 2u, 1u, 0u));
}

TEST_F(HandleValidation, OrderThatIsNotAPermutation) {
  std::vector<hami_order_device> devices;
  const auto input = order_input(in_, devices);
  for (const char* mode : {"not_permutation", "order_out_of_range", "order_unset"}) {
    const auto e = call_error([&] { (void)scheduling(mode).order_devices(input); });
    EXPECT_EQ(e.status(), HAMI_INTERNAL) << mode;
    EXPECT_THAT(e.what(), HasSubstr("liar.order_devices: invalid output: order is not a "
                                    "permutation of 0..4-1"))
        << mode;
  }
}

TEST_F(HandleValidation, OrderIsCheckedOnBothSidesOfSixtyFourDevices) {
  // Up to 64 devices the permutation check keeps its marks in one word,
  // beyond that in a vector: both must accept a permutation and refuse a
  // repeat or an index out of range.
  for (const size_t n : {size_t{63}, size_t{64}, size_t{65}, size_t{130}}) {
    std::vector<hami_device_usage> usage(n, in_.usage[0]);
    std::vector<hami_order_device> devices;
    for (const auto& u : usage)
      devices.push_back(hami_order_device{sizeof(hami_order_device), &u, 0.0});
    const hami_order_input input{
        sizeof(hami_order_input), {"lying", 5}, &in_.pod, devices.data(), devices.size()};
    std::vector<size_t> order(n);
    EXPECT_EQ(scheduling("none").order_devices_into(input, order), 0u) << n;
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(order[i], n - 1 - i) << n;
    for (const char* mode : {"not_permutation", "order_out_of_range", "order_unset"}) {
      const auto e = call_error([&] { (void)scheduling(mode).order_devices_into(input, order); });
      EXPECT_THAT(e.what(),
                  HasSubstr("order is not a permutation of 0.." + std::to_string(n) + "-1"))
          << mode << " " << n;
    }
  }
}

TEST_F(HandleValidation, OrderIntoTooSmallASpanIsRefusedBeforeTheCall) {
  std::vector<hami_order_device> devices;
  const auto input = order_input(in_, devices);
  std::vector<size_t> order(input.devices_len - 1);
  EXPECT_THROW((void)scheduling("none").order_devices_into(input, order), std::invalid_argument);
}

TEST_F(HandleValidation, UnknownVerdict) {
  hami_admission_host host{};
  host.struct_size = sizeof host;
  const hami_admission_input in{sizeof(hami_admission_input), &in_.pod, {"s", 1}, 0, &host};
  const auto e = call_error([&] { (void)admission("bad_verdict").review(in); });
  EXPECT_EQ(e.status(), HAMI_INTERNAL);
  EXPECT_STREQ(e.what(), "liar.review: invalid output: unknown verdict 7");
}

TEST_F(HandleValidation, NullBytesAppendedToASink) {
  hami_admission_host host{};
  host.struct_size = sizeof host;
  const hami_admission_input in{sizeof(hami_admission_input), &in_.pod, {"s", 1}, 0, &host};
  const auto e = call_error([&] { (void)admission("null_append").review(in); });
  EXPECT_THAT(e.what(), HasSubstr("liar.review: invalid output: sink append got NULL bytes with "
                                  "length 3"));
}

// Text a plugin hands over must be valid UTF-8 and of a sane size: it ends
// up in JSON replies, annotations and logs.
TEST_F(HandleValidation, InvalidUtf8InABorrowedString) {
  const auto handle = device("bad_utf8_string");
  const auto e = call_error([&] { (void)handle.decode_node(in_.node); });
  EXPECT_EQ(e.status(), HAMI_INTERNAL);
  EXPECT_STREQ(e.what(),
               "liar.decode_node: invalid output: device type is not valid UTF-8 (byte 1)");
}

TEST_F(HandleValidation, SurrogateInTheFitReason) {
  const auto handle = device("bad_utf8_reason");
  const auto e = call_error([&] { (void)handle.fit(in_.fit, in_.picks); });
  EXPECT_STREQ(e.what(), "liar.fit: invalid output: fit reason is not valid UTF-8 (byte 4)");
}

TEST_F(HandleValidation, InvalidUtf8InASink) {
  hami_admission_host host{};
  host.struct_size = sizeof host;
  const hami_admission_input in{sizeof(hami_admission_input), &in_.pod, {"s", 1}, 0, &host};
  const auto e = call_error([&] { (void)admission("bad_utf8_message").review(in); });
  EXPECT_STREQ(e.what(), "liar.review: invalid output: message is not valid UTF-8 (byte 3)");
}

TEST_F(HandleValidation, CharacterSplitOverTwoAppendsIsValid) {
  hami_admission_host host{};
  host.struct_size = sizeof host;
  const hami_admission_input in{sizeof(hami_admission_input), &in_.pod, {"s", 1}, 0, &host};
  const auto decision = admission("split_utf8_message").review(in);
  EXPECT_EQ(decision.message, "caf\xC3\xA9");
}

TEST_F(HandleValidation, OversizedSinkOutput) {
  hami_admission_host host{};
  host.struct_size = sizeof host;
  const hami_admission_input in{sizeof(hami_admission_input), &in_.pod, {"s", 1}, 0, &host};
  const auto e = call_error([&] { (void)admission("huge_message").review(in); });
  EXPECT_STREQ(e.what(),
               "liar.review: invalid output: sink output grows over the limit of 1048576 bytes");
}

TEST_F(HandleValidation, OversizedAllocationAnnotation) {
  const auto handle = device("huge_annotation");
  const auto e = call_error([&] { (void)handle.encode_allocation({}); });
  EXPECT_STREQ(e.what(),
               "liar.encode_allocation: invalid output: sink output grows over the "
               "limit of 1048576 bytes");
}

TEST(PluginText, Utf8Validation) {
  using host::first_invalid_utf8;
  EXPECT_EQ(first_invalid_utf8(""), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("plain ascii"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("\xF4\x8F\xBF\xBF"), std::nullopt);  // U+10FFFF
  EXPECT_EQ(first_invalid_utf8("a\xFF"), 1u);
  EXPECT_EQ(first_invalid_utf8("ab\xC0\xAF"), 2u);        // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xE0\x80\xAF"), 0u);      // overlong
  EXPECT_EQ(first_invalid_utf8("\xED\xA0\x80"), 0u);      // surrogate
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("ok\xE2\x82"), 2u);        // truncated
  EXPECT_EQ(first_invalid_utf8("\x80"), 0u);              // lone continuation
  EXPECT_EQ(host::sanitized_utf8("a\xFF"
                                 "b\xC3\xA9"),
            "a?b\xC3\xA9");
}

}  // namespace
}  // namespace hami::test
