// Vastai admission and requests (HAMi MutateAdmission,
// GenerateResourceRequests). A container uses Vastai when its limits name the
// count; nothing is changed. The request is the count from the limits, else
// the requests, with memory 0 at 100 percent and 0 cores: devices are shared
// by their registered count only.
// HAMi §11.9c / X12 fixed as for Biren: a count that is negative, not an
// integer or above INT32_MAX (HAMi drops it or wraps it to int32) is an
// unusable request (InvalidInput: the host reports why, the container gets
// no request).
#ifndef HAMI_DEVICES_VASTAI_REQUESTS_HPP
#define HAMI_DEVICES_VASTAI_REQUESTS_HPP

#include <cstdint>

#include "container.hpp"
#include "vastai_config.hpp"

namespace hami::devices::vastai {

bool uses_vastai(const VastaiConfig& config, const ContainerRef& container);

// The number of devices; 0 = no request.
std::int32_t requested_count(const VastaiConfig& config, const ContainerRef& container);

}  // namespace hami::devices::vastai

#endif  // HAMI_DEVICES_VASTAI_REQUESTS_HPP
