// A plugin that throws in every call never takes the host down: the SDK's
// barrier reports HAMI_INTERNAL with the exception's what() text, and every
// handle method turns that into PluginCallError "<name>.<function>: …".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "fixture_paths.h"
#include "load_error.hpp"
#include "plugin_test_support.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_loader.hpp"

namespace hami::test {
namespace {

void expect_internal(const host::PluginCallError& e, const std::string& function) {
  EXPECT_EQ(e.status(), HAMI_INTERNAL);
  EXPECT_EQ(std::string(e.what()),
            "thrower." + function + ": throws_everywhere: " + function + " threw");
}

class ThrowingPlugin : public ::testing::Test {
 protected:
  TempPluginDir dir_;
  RecordingServices recorder_;
  host::PluginSpec spec_for(const char* fixture, uint32_t kind) {
    dir_.add(fixture);
    return spec("thrower", fixture, kind);
  }
};

TEST_F(ThrowingPlugin, EveryDeviceCallBecomesPluginCallError) {
  const auto handle = host::load_device_plugin(
      dir_.options(), spec_for(HAMI_FIXTURE_THROWS_DEVICE, HAMI_KIND_DEVICE), recorder_.services());
  ASSERT_EQ(handle.description().vendor, "THROWS");

  const hami_container_view container{
      sizeof(hami_container_view), {"c", 1}, 0, 0, nullptr, 0, nullptr, 0, nullptr, 0};
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  pod.containers = &container;
  pod.containers_len = 1;
  hami_node_view node{};
  node.struct_size = sizeof node;
  const hami_device_request request{sizeof(hami_device_request), 1, 0, 0, 0, 0};
  hami_fit_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod;
  in.request = &request;
  std::array<hami_fit_pick, 1> picks{};

  expect_internal(call_error([&] { (void)handle.mutate_container(pod, 0); }), "mutate_container");
  expect_internal(call_error([&] { (void)handle.container_request(pod, 0); }), "container_request");
  expect_internal(call_error([&] { (void)handle.decode_node(node); }), "decode_node");
  expect_internal(call_error([&] { (void)handle.node_health(node, 1); }), "node_health");
  expect_internal(call_error([&] { (void)handle.node_cleanup(node); }), "node_cleanup");
  expect_internal(call_error([&] { (void)handle.fit(in, picks); }), "fit");
  expect_internal(call_error([&] { (void)handle.encode_allocation({}); }), "encode_allocation");
  expect_internal(call_error([&] { (void)handle.decode_allocation("x"); }), "decode_allocation");

  // Still usable afterwards: the same call fails the same way.
  expect_internal(call_error([&] { (void)handle.decode_node(node); }), "decode_node");
}

TEST_F(ThrowingPlugin, AdmissionReviewBecomesPluginCallError) {
  const auto handle = host::load_admission_plugin(
      dir_.options(), spec_for(HAMI_FIXTURE_THROWS_ADMISSION, HAMI_KIND_ADMISSION),
      recorder_.services());
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  hami_admission_host host{};
  host.struct_size = sizeof host;
  hami_admission_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod;
  in.host = &host;
  expect_internal(call_error([&] { (void)handle.review(in); }), "review");
}

TEST_F(ThrowingPlugin, SchedulingCallsBecomePluginCallError) {
  const auto handle = host::load_scheduling_plugin(
      dir_.options(), spec_for(HAMI_FIXTURE_THROWS_SCHEDULING, HAMI_KIND_SCHEDULING),
      recorder_.services());
  EXPECT_THAT(handle.describe().node_policies, ::testing::ElementsAre("throwing"));
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  hami_node_usage usage{};
  usage.struct_size = sizeof usage;
  hami_order_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod;
  expect_internal(call_error([&] { (void)handle.score_node("throwing", pod, usage); }),
                  "score_node");
  expect_internal(call_error([&] { (void)handle.order_devices(in); }), "order_devices");
}

}  // namespace
}  // namespace hami::test
