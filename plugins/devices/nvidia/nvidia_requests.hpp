// Container resources → one NVIDIA request (HAMi §5.1), read from limits and
// falling back to requests:
//   1. no count resource → no request; a count that is not a positive
//      integer ≤ INT32_MAX → unusable (InvalidInput), 0 → no request;
//   2. memory must be an integer in [0, INT32_MAX / memoryFactor] MiB, then
//      is multiplied by memoryFactor; anything else ("10Gi", "1.5", "-1")
//      makes the whole request unusable. HAMi drops such a request silently
//      (7.7#8); here the webhook denies the pod and filter fails it;
//   3. percentage: values > 100 clamp to 100, ≤ 0 or non-integer are unset;
//   4. no percentage and no memory: defaultMemory if set, else 100 % (a
//      whole card's memory);
//   5. cores: defaultCores unless given (a non-integer keeps the default; a
//      negative value is unusable; Fit clamps values above 100).
#ifndef HAMI_DEVICES_NVIDIA_REQUESTS_HPP
#define HAMI_DEVICES_NVIDIA_REQUESTS_HPP

#include <cstdint>

#include "container.hpp"
#include "nvidia_config.hpp"

namespace hami::devices::nvidia {

struct Request {
  std::int32_t count = 0;           // 0 = no request
  std::int64_t memory_mib = 0;      // per device, after memoryFactor
  std::int32_t memory_percent = 0;  // 1..100, 0 = unset
  std::int32_t cores = 0;
};

// Throws InvalidInput naming the resource, value and container.
Request container_request(const NvidiaConfig& config, const ContainerRef& container);

// Admission: the count, memory and cores values the container names,
// checked as container_request checks them (whether or not the count is
// there), so that a pod asking for a device in a form that cannot be
// scheduled is denied instead of reaching filter with no request (HAMi
// 7.7#8: HAMi reads `nvidia.com/gpumem: 8Gi` as 8589934592 MiB, out of
// range, and schedules the pod anywhere). Throws InvalidInput as
// container_request does.
void check_request_values(const NvidiaConfig& config, const ContainerRef& container);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_REQUESTS_HPP
