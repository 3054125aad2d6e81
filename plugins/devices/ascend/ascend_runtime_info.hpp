// The pod annotation `huawei.com/<CW>` that Ascend's node-side plugin reads
// at Allocate (reference §1.6): one JSON object per allocated NPU over all
// containers (init first), as Go's json.Marshal writes
//   [{"UUID":"NPU-4","temp":"vir05_1c_16g","memory":16384}]
// Members in this order, each left out when empty or zero: UUID; temp, only
// in hard split — the template of the allocated memory (the smallest whose
// memory is at least it), none for a whole NPU; memory (MiB); core
// (percent, soft split). Strings are escaped as Go does (HTML-safe).
#ifndef HAMI_DEVICES_ASCEND_RUNTIME_INFO_HPP
#define HAMI_DEVICES_ASCEND_RUNTIME_INFO_HPP

#include <optional>
#include <span>
#include <string>

#include "ascend_config.hpp"
#include "hami/device.h"

namespace hami::devices::ascend {

// The annotation value; nullopt when the containers hold no device.
std::optional<std::string> runtime_info(const AscendConfig& config,
                                        std::span<const hami_placed_container> containers,
                                        bool soft_split);

}  // namespace hami::devices::ascend

#endif  // HAMI_DEVICES_ASCEND_RUNTIME_INFO_HPP
