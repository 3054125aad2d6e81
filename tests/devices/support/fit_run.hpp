// One call of a device plugin's fit through the ABI, with what a test
// checks afterwards: the verdict and reason, the picks, and the picked
// devices' ids and the picks' types copied while the input was alive.
// Plus the device builders the fit tests share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device_under_test.hpp"
#include "k8s_views.hpp"

namespace hami::testing {

struct FitOutcome {
  FitResult result;
  std::vector<hami_fit_pick> picks;
  std::vector<std::string> ids;    // the picked devices' ids, in pick order
  std::vector<std::string> types;  // the picks' type text, in pick order
};

FitOutcome run_fit(const DeviceUnderTest& dut, FitFixture& devices, PodFixture& pod,
                   const hami_device_request& req, std::uint32_t flags = 0,
                   const hami_quota_hook* quota = nullptr);
// A pod with `annotations` and one container, on `devices` (index 0 tried first).
FitOutcome run_fit(const DeviceUnderTest& dut, std::vector<DeviceState> devices,
                   const hami_device_request& req, Pairs annotations = {}, std::uint32_t flags = 0);

// An NVIDIA device of `mem` MiB and 100 cores with split count `count`
// and the given usage.
DeviceState nvidia_card(std::string id, std::int64_t mem, std::int32_t count = 100,
                        std::int32_t used = 0, std::int64_t used_mem = 0,
                        std::int32_t used_cores = 0, bool healthy = true);

// An AMD device ("AMDGPU") of `mem` MiB and `cus` compute units.
DeviceState amd_card(std::string id, std::int32_t count, std::int64_t mem, std::int32_t cus,
                     std::int64_t used_mem = 0, std::int32_t used_cus = 0, std::int32_t used = 0);

}  // namespace hami::testing
