// Device instances without HAMI_FLAG_CONCURRENT_SAFE are never called from
// two threads at once (HAMI-HOST-8); instances with it are not serialised.
// The probe fixture records the most calls it ever saw inside `fit`
// together; each call waits (bounded) for a second one to arrive.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "fixture_paths.h"
#include "plugin_test_support.hpp"
#include "plugins/plugin_loader.hpp"

namespace hami::test {
namespace {

// Runs `threads` × `calls` fit calls that start together; returns the
// reasons ("max=<n>") in completion order per thread.
std::vector<std::string> concurrent_fits(const host::DevicePluginHandle& handle, int threads,
                                         int calls) {
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  hami_device_request request{};
  request.struct_size = sizeof request;
  hami_fit_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod;
  in.request = &request;

  std::vector<std::vector<std::string>> reasons(static_cast<size_t>(threads));
  std::latch start(threads);
  std::vector<std::jthread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int c = 0; c < calls; ++c) {
        std::array<hami_fit_pick, 1> picks{};
        reasons[static_cast<size_t>(t)].push_back(handle.fit(in, picks).reason);
      }
    });
  }
  workers.clear();  // joins
  std::vector<std::string> all;
  for (const auto& r : reasons) {
    all.insert(all.end(), r.begin(), r.end());
  }
  return all;
}

TEST(Serialisation, DevicePluginWithoutTheFlagIsNeverCalledConcurrently) {
  TempPluginDir dir;
  RecordingServices recorder;
  dir.add(HAMI_FIXTURE_PROBE_SERIAL);
  const auto handle = host::load_device_plugin(
      dir.options(), spec("probe", HAMI_FIXTURE_PROBE_SERIAL, HAMI_KIND_DEVICE),
      recorder.services());
  EXPECT_EQ(handle.info().flags & HAMI_FLAG_CONCURRENT_SAFE, 0u);
  const auto reasons = concurrent_fits(handle, 3, 2);
  ASSERT_EQ(reasons.size(), 6u);
  EXPECT_THAT(reasons, ::testing::Each(std::string("max=1")));
}

TEST(Serialisation, ConcurrentSafePluginIsCalledConcurrently) {
  TempPluginDir dir;
  RecordingServices recorder;
  dir.add(HAMI_FIXTURE_PROBE_CONCURRENT);
  const auto handle = host::load_device_plugin(
      dir.options(), spec("probe", HAMI_FIXTURE_PROBE_CONCURRENT, HAMI_KIND_DEVICE),
      recorder.services());
  EXPECT_NE(handle.info().flags & HAMI_FLAG_CONCURRENT_SAFE, 0u);
  // Each call waits for the other; with no host lock both get in together.
  const auto reasons = concurrent_fits(handle, 2, 1);
  EXPECT_THAT(reasons, ::testing::Each(std::string("max=2")));
}

}  // namespace
}  // namespace hami::test
