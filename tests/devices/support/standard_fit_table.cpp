#include "standard_fit_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace hami::testing {

DeviceState standard_card(const std::string& type, std::string id, std::int64_t memory_mib,
                          std::int32_t used, std::int32_t used_cores) {
  DeviceState d;
  d.id = std::move(id);
  d.type = type;
  d.count = 100;
  d.memory_mib = memory_mib;
  d.cores = 100;
  d.used = used;
  d.used_cores = used_cores;
  return d;
}

std::vector<StandardFitCase> standard_fit_cases(const StandardFitVendor& v) {
  const auto card = [&](std::string id, std::int64_t mem, std::int32_t used = 0,
                        std::int32_t used_cores = 0) {
    return standard_card(v.type, std::move(id), mem, used, used_cores);
  };
  std::vector<StandardFitCase> cases;
  cases.push_back({"T1 fit success",
                   {card("dev-0", 128), card("dev-1", 128)},
                   make_request(1, 64, 0, 50),
                   {},
                   0,
                   true,
                   {"dev-1"},
                   ""});
  cases.push_back({"T2 memory not enough",
                   {card("dev-0", 128)},
                   make_request(1, 512, 0, 50),
                   {},
                   0,
                   false,
                   {},
                   "1/1 CardInsufficientMemory"});
  cases.push_back({"T3 core not enough",
                   {card("dev-0", 1024, 0, 100)},
                   make_request(1, 512, 0, 50),
                   {},
                   0,
                   false,
                   {},
                   "1/1 CardInsufficientCore"});
  cases.push_back({"T5 use uuid mismatch",
                   {card("dev-1", 1280)},
                   make_request(2, 512, 0, 50),
                   {{v.use_uuid_key, "dev-0"}},
                   0,
                   false,
                   {},
                   "1/1 CardUuidMismatch"});
  cases.push_back({"T6 nouse uuid match",
                   {card("dev-0", 1280)},
                   make_request(2, 512, 0, 50),
                   {{v.nouse_uuid_key, "dev-0"}},
                   0,
                   false,
                   {},
                   "1/1 CardUuidMismatch"});
  cases.push_back({"T7 card overused",
                   {card("dev-0", 1280, 100)},
                   make_request(1, 512, 0, 50),
                   {},
                   0,
                   false,
                   {},
                   "1/1 CardTimeSlicingExhausted"});
  cases.push_back({"T8 cores above 100 are 100",
                   {card("dev-0", 1280)},
                   make_request(1, 512, 0, 120),
                   {},
                   0,
                   true,
                   {"dev-0"},
                   ""});
  cases.push_back({"T9 card exclusively",
                   {card("dev-0", 1280, 20)},
                   make_request(1, 512, 0, 100),
                   {},
                   0,
                   false,
                   {},
                   "1/1 ExclusiveDeviceAllocateConflict"});
  cases.push_back({"T10 compute units exhausted",
                   {card("dev-0", 1280, 20, 100)},
                   make_request(1, 512, 0, 0),
                   {},
                   0,
                   false,
                   {},
                   "1/1 CardComputeUnitsExhausted"});
  cases.push_back({"T11 allocated cards insufficient",
                   {card("dev-0", 1280, 20, 10)},
                   make_request(2, 512, 0, 20),
                   {},
                   0,
                   false,
                   {},
                   "1/1 AllocatedCardsInsufficientRequest"});
  cases.push_back({"T12 memory percentage",
                   {card("dev-0", 1280, 20, 10)},
                   make_request(1, 0, 10, 20),
                   {},
                   0,
                   true,
                   {"dev-0"},
                   ""});
  DeviceState shared = card("dev-0", 128, 1);
  shared.count = 2;
  cases.push_back({"T13 mutex rejects a used device",
                   {shared},
                   make_request(1, 64, 0, 50),
                   {},
                   HAMI_FIT_MUTEX,
                   false,
                   {},
                   "1/1 ExclusiveDeviceAllocateConflict"});
  cases.push_back({"T14 partial allocation",
                   {card("dev-0", 1280), card("dev-1", 1280)},
                   make_request(3, 512, 0, 20),
                   {},
                   0,
                   false,
                   {},
                   "2/2 AllocatedCardsInsufficientRequest"});
  DeviceState sick = card("dev-0", 1280);
  sick.healthy = false;
  cases.push_back({"T15 not healthy",
                   {sick},
                   make_request(1, 512, 0, 50),
                   {},
                   0,
                   false,
                   {},
                   "1/1 CardNotHealth"});
  return cases;
}

void expect_standard_fit(const DeviceUnderTest& dut, const StandardFitCase& c) {
  SCOPED_TRACE(c.name);
  std::vector<DeviceState> try_order = c.devices;
  std::reverse(try_order.begin(), try_order.end());
  const FitOutcome o = run_fit(dut, try_order, c.request, c.annotations, c.flags);
  EXPECT_EQ(o.result.fits, c.fits);
  if (c.fits) {
    EXPECT_EQ(o.ids, c.picked);
  } else {
    EXPECT_TRUE(o.ids.empty());
  }
  EXPECT_EQ(o.result.reason, c.reason);
}

}  // namespace hami::testing
