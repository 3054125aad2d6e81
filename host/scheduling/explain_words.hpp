// The words of an explanation: a device verdict's numbers, a reason code's
// short group, and the pod's device selectors — read generically, from
// what the vendor's description names (its resource domain), never from a
// vendor's name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hami/device.h"
#include "hami/objects.h"
#include "plugins/device_plugin_handle.hpp"
#include "scheduling/device_use.hpp"
#include "scheduling/reason_text.hpp"

namespace hami::scheduling {

// What one device of `vendor` lacks, or has, for one device of `request`:
//   CardInsufficientMemory  "needs 8000 MiB, 6000 MiB free"
//   CardInsufficientCore    "needs 30 % cores, 20 % free" (percent vendors whose
//                           devices register 100), "cores: asks 30, 12 of 20 cores
//                           free" (percent requests, devices registering a count),
//                           "cores: asks 100, 152 of 304 compute units free"
//   ExclusiveDeviceAllocateConflict
//                           "exclusive: 1 pod already on it"
//   CardTimeSlicingExhausted "all 10 slots taken"
//   CardTypeMismatch        "type NVIDIA-Tesla T4 excluded by nvidia.com/use-gputype=A100"
//   CardUuidMismatch        "id GPU-… excluded by nvidia.com/nouse-gpuuuid=GPU-…"
//   CardNotHealth, CardCordoned, CardComputeUnitsExhausted, ResourceQuotaNotFit
//                           a sentence each
//   "" (fits)               "needs 8000 MiB, 40960 MiB free; needs 30 % cores, 100 % free",
//                           "…; cores not metered" for a vendor naming no core resource
// and for any other code the code itself. `memory_short` is set to the MiB
// the device lacks for CardInsufficientMemory, else 0.
std::string device_detail(const host::DeviceDescription& vendor, const hami_pod_view& pod,
                          const hami_device& device, const DeviceUse& use,
                          const hami_device_request& request, std::string_view code,
                          int64_t& memory_short);

// The short group of a reason code for the summary: "insufficient memory",
// "insufficient cores", "exclusive conflict", "no free slot", "type
// excluded", "id excluded", "unhealthy device", "cordoned device", "quota
// exceeded", "cores used up", "NUMA mismatch", "too few devices"; any
// other code as it is.
std::string reason_group(std::string_view code);

}  // namespace hami::scheduling
