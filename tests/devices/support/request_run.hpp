// One container's request through a device plugin's container_request,
// and the check of its four numbers, for the vendor request tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "device_under_test.hpp"
#include "k8s_views.hpp"

namespace hami::testing {

// The request of a pod's only container "c1" with these limits and requests.
inline RequestResult request(const DeviceUnderTest& dut, Pairs limits, Pairs requests = {}) {
  PodFixture pod;
  pod.container({"c1", false, std::move(limits), std::move(requests), {}});
  return dut.plugin().container_request(pod.view(), 0);
}

inline void expect_request(const hami_device_request& r, std::int32_t count, std::int64_t mem,
                           std::int32_t pct, std::int32_t cores) {
  EXPECT_EQ(r.count, count);
  EXPECT_EQ(r.memory_mib, mem);
  EXPECT_EQ(r.memory_percent, pct);
  EXPECT_EQ(r.cores, cores);
}

}  // namespace hami::testing
