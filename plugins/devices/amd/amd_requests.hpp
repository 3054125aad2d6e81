// Container resources → one AMD request (HAMi §5.1), limits only:
//   count 1..INT32_MAX, memory 0..INT32_MAX MiB (0 = the whole card), core
//   percentage 1..100 defaulting to 100; any violation makes the request
//   unusable (InvalidInput).
// HAMi bug 7.7#7 fixed: a container with memory and/or cores but no count in
// its limits is admitted as an AMD container, so it gets a request for one
// GPU instead of silently none. An explicit count of 0 means no request.
#ifndef HAMI_DEVICES_AMD_REQUESTS_HPP
#define HAMI_DEVICES_AMD_REQUESTS_HPP

#include <cstdint>

#include "amd_config.hpp"
#include "container.hpp"

namespace hami::devices::amd {

struct Request {
  std::int32_t count = 0;       // 0 = no request
  std::int64_t memory_mib = 0;  // 0 = the whole card
  std::int32_t cores = 0;       // percent of the device's CUs, 1..100
};

Request container_request(const AmdConfig& config, const ContainerRef& container);

// The admission-time check of a core percentage; throws InvalidInput with
// "<cores resource> must be an integer percentage between 1 and 100".
std::int32_t checked_core_percent(const AmdConfig& config, std::string_view text);

}  // namespace hami::devices::amd

#endif  // HAMI_DEVICES_AMD_REQUESTS_HPP
