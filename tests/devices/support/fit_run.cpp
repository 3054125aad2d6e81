#include "fit_run.hpp"

#include <algorithm>
#include <utility>

namespace hami::testing {

FitOutcome run_fit(const DeviceUnderTest& dut, FitFixture& devices, PodFixture& pod,
                   const hami_device_request& req, std::uint32_t flags,
                   const hami_quota_hook* quota) {
  FitOutcome o;
  o.picks.resize(static_cast<std::size_t>(std::max(req.count, 1)));
  const hami_fit_input in = devices.input(pod.view(), req, flags, quota);
  o.result = dut.plugin().fit(in, o.picks);
  o.picks.resize(o.result.picks_len);
  for (const hami_fit_pick& p : o.picks) {
    o.ids.push_back(devices.device(p.device).id);
    o.types.emplace_back(p.type.ptr, p.type.len);
  }
  return o;
}

FitOutcome run_fit(const DeviceUnderTest& dut, std::vector<DeviceState> devices,
                   const hami_device_request& req, Pairs annotations, std::uint32_t flags) {
  FitFixture f(std::move(devices));
  PodFixture pod;
  for (auto& [k, v] : annotations)
    pod.annotation(std::move(k), std::move(v));
  pod.container({});
  return run_fit(dut, f, pod, req, flags);
}

DeviceState nvidia_card(std::string id, std::int64_t mem, std::int32_t count, std::int32_t used,
                        std::int64_t used_mem, std::int32_t used_cores, bool healthy) {
  DeviceState d;
  d.id = std::move(id);
  d.memory_mib = mem;
  d.count = count;
  d.used = used;
  d.used_memory_mib = used_mem;
  d.used_cores = used_cores;
  d.healthy = healthy;
  return d;
}

DeviceState amd_card(std::string id, std::int32_t count, std::int64_t mem, std::int32_t cus,
                     std::int64_t used_mem, std::int32_t used_cus, std::int32_t used) {
  DeviceState d;
  d.id = std::move(id);
  d.type = "AMDGPU";
  d.count = count;
  d.memory_mib = mem;
  d.cores = cus;
  d.used_memory_mib = used_mem;
  d.used_cores = used_cus;
  d.used = used;
  return d;
}

}  // namespace hami::testing
