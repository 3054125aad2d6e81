// HAMi's standard Fit test table (reference §0.5, the TestDevices_Fit cases
// most vendors' device_test.go copy), with HAMi's expected values, run
// through a vendor plugin's fit.
//
// Devices are listed in HAMi's slice order; the runner hands them to fit in
// try order (reversed: HAMi walks its list from the end). T4 ("request type
// OtherType") has no ABI form — the host gives fit only devices whose type
// contains the vendor word — and T13's pod annotation
// `hami.io/gpu-scheduler-policy: mutex` arrives as HAMI_FIT_MUTEX.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fit_run.hpp"

namespace hami::testing {

struct StandardFitCase {
  std::string name;                  // "T1 fit success", ...
  std::vector<DeviceState> devices;  // HAMi slice order
  hami_device_request request{};
  Pairs annotations;
  std::uint32_t flags = 0;
  bool fits = false;
  std::vector<std::string> picked;  // device ids, pick order
  std::string reason;
};

struct StandardFitVendor {
  std::string type;            // device type, e.g. "DCU"
  std::string use_uuid_key;    // e.g. "hygon.com/use-gpuuuid"
  std::string nouse_uuid_key;  // e.g. "hygon.com/nouse-gpuuuid"
};

// A device of the table: Count 100, Totalcore 100, healthy, `type`.
DeviceState standard_card(const std::string& type, std::string id, std::int64_t memory_mib,
                          std::int32_t used = 0, std::int32_t used_cores = 0);

// T1–T3 and T5–T15 (T4 has no ABI form, see above).
std::vector<StandardFitCase> standard_fit_cases(const StandardFitVendor& vendor);

// One case; EXPECTs verdict, picked ids, reason.
void expect_standard_fit(const DeviceUnderTest& dut, const StandardFitCase& c);

}  // namespace hami::testing
