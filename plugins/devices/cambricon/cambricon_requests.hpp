// Container resources → one MLU request (HAMi GenerateResourceRequests).
// Each resource is read from the limits, else the requests:
//   count   an integer 1..INT32_MAX; absent or 0 is no request;
//   memory  an integer 0..8388607 units of 256 MiB (INT32_MAX / 256), × 256
//           into MiB; 0 or absent = the whole card (percent 100);
//   cores   an integer 0..INT32_MAX percent, default 100 (fit takes > 100
//           as 100).
// A value outside these ranges is an unusable request (InvalidInput: the
// host reports why and the container gets no request). For memory that is
// HAMi's rule, which drops the request silently. HAMi X12 / §4.9d fixed: a
// negative, non-integer or oversized count (HAMi drops it silently or wraps
// it to int32) and negative cores (HAMi takes them as given, so the pick
// frees compute on the card) are unusable too; so are non-integer cores
// ("0.5", "500m"), for which HAMi silently asks for 100 percent, a whole
// card taken exclusively.
#ifndef HAMI_DEVICES_CAMBRICON_REQUESTS_HPP
#define HAMI_DEVICES_CAMBRICON_REQUESTS_HPP

#include <cstdint>

#include "cambricon_config.hpp"
#include "container.hpp"

namespace hami::devices::cambricon {

struct Request {
  std::int32_t count = 0;       // 0 = no request
  std::int64_t memory_mib = 0;  // after the factor 256; 0 = see percent
  std::int32_t memory_percent = 0;
  std::int32_t cores = 0;
};

// HAMi MutateAdmission: the container uses MLUs when its limits name the
// count resource. Nothing is changed.
bool uses_mlu(const CambriconConfig& config, const ContainerRef& container);

Request container_request(const CambriconConfig& config, const ContainerRef& container);

}  // namespace hami::devices::cambricon

#endif  // HAMI_DEVICES_CAMBRICON_REQUESTS_HPP
