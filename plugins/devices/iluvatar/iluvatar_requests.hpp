// Container resources → one request for the chip (HAMi
// GenerateResourceRequests). Each resource is read from the limits, else
// the requests:
//   count   an integer; 0 is no request;
//   memory  an integer 0..8388607 units of 256 MiB (INT32_MAX / 256), else
//           no request as in HAMi; 0 = the whole card (percent 100);
//   cores   percent, default 0 (shared compute, as HAMi).
// HAMi X12 / §7.9c fixed: a count that is negative, not an integer or above
// INT32_MAX (HAMi drops or wraps it to int32 without a word), and cores that are negative, above
// INT32_MAX or not an integer (HAMi takes them as given or as 0), are unusable requests
// (InvalidInput: the host reports why and the container gets no request).
#ifndef HAMI_DEVICES_ILUVATAR_REQUESTS_HPP
#define HAMI_DEVICES_ILUVATAR_REQUESTS_HPP

#include <cstdint>

#include "container.hpp"
#include "iluvatar_config.hpp"

namespace hami::devices::iluvatar {

struct Request {
  std::int32_t count = 0;
  std::int64_t memory_mib = 0;
  std::int32_t memory_percent = 0;
  std::int32_t cores = 0;
};

Request container_request(const IluvatarConfig& config, const ContainerRef& container);

}  // namespace hami::devices::iluvatar

#endif  // HAMI_DEVICES_ILUVATAR_REQUESTS_HPP
