// Biren admission and requests (HAMi MutateAdmission,
// GenerateResourceRequests). A container uses Biren when its limits name the
// count; nothing is changed. The request is the count from the limits, else
// the requests, with memory 0 at 100 percent and 0 cores: cards are shared
// by their registered count only.
// HAMi §3.9b fixed: a count that is negative, not an integer or above
// INT32_MAX (HAMi drops it or wraps it to int32) is an unusable request
// (InvalidInput: the host reports why, the container gets no request).
#ifndef HAMI_DEVICES_BIREN_REQUESTS_HPP
#define HAMI_DEVICES_BIREN_REQUESTS_HPP

#include <cstdint>

#include "biren_config.hpp"
#include "container.hpp"

namespace hami::devices::biren {

bool uses_biren(const BirenConfig& config, const ContainerRef& container);

// The number of cards; 0 = no request.
std::int32_t requested_count(const BirenConfig& config, const ContainerRef& container);

}  // namespace hami::devices::biren

#endif  // HAMI_DEVICES_BIREN_REQUESTS_HPP
