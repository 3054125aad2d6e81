// The allocation annotation (example.com/vaccel-allocated), in HAMi's
// grammar: one segment per container, each ended by ';', holding
// "<id>,<type>,<memory MiB>,<cores>:" per device. Containers without devices
// keep their (empty) segment, so positions match the pod's containers.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "hami/device.h"

namespace example {

// Throws hami::Error(HAMI_INVALID_ARGUMENT) when an id or type contains one
// of the separators , : ;
std::string encode_allocation(std::span<const hami_container_alloc> containers);

// Calls out.container once per segment and out.device per device; throws
// hami::Error(HAMI_INVALID_ARGUMENT) for a malformed value.
void decode_allocation(std::string_view value, const hami_allocation_sink& out);

}  // namespace example
