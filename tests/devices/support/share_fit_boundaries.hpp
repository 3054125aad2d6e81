// Every capacity check of HAMi's share-fit (reference §0.4, S-FIT steps
// 4–10) at its exact boundary, for any vendor that runs it: a request that
// takes exactly what is free fits (with the pick's memory and cores), one
// unit more — or one unit less free — fails with HAMi's reason. Memory in
// MiB and as a percentage, cores (clamped at 100), the split count, the
// exclusive 100-core request, the used-up card and the mutex policy.
//
// Cards are `type` devices of 100 cores and split count 100 unless a case
// says otherwise; each case offers one card.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fit_run.hpp"

namespace hami::testing {

struct BoundaryCase {
  std::string name;
  DeviceState device;
  hami_device_request request{};
  std::uint32_t flags = 0;
  std::string expected;  // "fits" or HAMi's reason
  // When it fits: the pick's memory and cores.
  std::int64_t memory = 0;
  std::int32_t cores = 0;
};

// A `type` card of `memory_mib` MiB and 100 cores, split count 100, with
// `used` tasks holding `used_memory` MiB and `used_cores` cores.
DeviceState boundary_card(const std::string& type, std::int64_t memory_mib, std::int32_t used = 0,
                          std::int64_t used_memory = 0, std::int32_t used_cores = 0);

// The split count and mutex cases (S-FIT steps 4–5): the checks of every
// vendor, count-only ones (Biren, Vastai) included. Picks carry no memory
// and the request's cores (0).
std::vector<BoundaryCase> slot_boundary_cases(const std::string& type);

// slot_boundary_cases plus memory and cores (S-FIT steps 7–10).
std::vector<BoundaryCase> share_fit_boundary_cases(const std::string& type);

// One case through `dut`'s fit; EXPECTs the verdict, reason, pick memory and cores.
void expect_boundary(const DeviceUnderTest& dut, const BoundaryCase& c, Pairs annotations = {});

}  // namespace hami::testing
