// Container resources → one DCU request (HAMi GenerateResourceRequests).
// Each resource is read from the limits, else the requests:
//   count   integer 1..INT32_MAX;
//   memory  integer 0..INT32_MAX MiB, × memoryFactor when it is above 1, the
//           product at most INT32_MAX; 0 = the whole card (percent 100);
//   cores   integer 0..INT32_MAX percent, default 100 (fit takes > 100 as 100).
// A value outside these ranges is an unusable request (InvalidInput; the
// host reports it and the container gets no request), as HAMi drops it.
// HAMi bug §6.9a fixed: a memory or cores value that is not an integer
// ("1.5", "500m") is unusable too, where HAMi took the whole card or 100
// percent for it.
#ifndef HAMI_DEVICES_HYGON_REQUESTS_HPP
#define HAMI_DEVICES_HYGON_REQUESTS_HPP

#include <cstdint>

#include "container.hpp"
#include "hygon_config.hpp"

namespace hami::devices::hygon {

struct Request {
  std::int32_t count = 0;       // 0 = no request
  std::int64_t memory_mib = 0;  // after memoryFactor; 0 = see percent
  std::int32_t memory_percent = 0;
  std::int32_t cores = 0;
};

// HAMi MutateAdmission: the container uses DCUs when its limits name the
// count resource. Nothing is changed.
bool uses_dcu(const HygonConfig& config, const ContainerRef& container);

Request container_request(const HygonConfig& config, const ContainerRef& container);

}  // namespace hami::devices::hygon

#endif  // HAMI_DEVICES_HYGON_REQUESTS_HPP
