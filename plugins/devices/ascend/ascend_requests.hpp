// Container resources → one request for the chip (HAMi
// GenerateResourceRequests, reference §1.4). Each resource is read from the
// limits, else the requests:
//   count   an integer 1..2147483647; 0 is no request;
//   memory  MiB, an integer 0..2147483647, times memoryFactor when above 1
//           (the product must stay within 2147483647); 0 or absent = the
//           whole NPU (percent 100);
//   cores   only when resourceCoreName is configured: percent, rounded up,
//           0..2147483647.
// No template rounding happens here; admission did it.
// Values outside these rules are unusable requests (InvalidInput: the host
// logs why and the container gets no request), where HAMi silently drops
// the request.
// §1.9d fixed: HAMi takes a memory that is not an integer (1.5, 1500m) as
// 0, i.e. a whole NPU; here it is unusable, as a count or core value is.
// Admission rewrites the limits to an integer, so only a memory given in the
// requests alone can be affected.
#ifndef HAMI_DEVICES_ASCEND_REQUESTS_HPP
#define HAMI_DEVICES_ASCEND_REQUESTS_HPP

#include <cstdint>

#include "ascend_config.hpp"
#include "container.hpp"

namespace hami::devices::ascend {

struct Request {
  std::int32_t count = 0;
  std::int64_t memory_mib = 0;
  std::int32_t memory_percent = 0;
  std::int32_t cores = 0;
};

Request container_request(const AscendConfig& config, const ContainerRef& container);

}  // namespace hami::devices::ascend

#endif  // HAMI_DEVICES_ASCEND_REQUESTS_HPP
