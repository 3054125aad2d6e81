// AMD admission (HAMi §2.4), limits only. A container uses AMD when its
// limits name the count, memory or cores resource. The core percentage, when
// present, must be an integer 1–100 ("amd.com/gpucores must be an integer
// percentage between 1 and 100"); HAMi checks it only next to a count, here
// it is checked whenever the container uses AMD, because a cores-only
// container now gets a request (7.7#7) and must not be admitted with a value
// the scheduler would reject. Nothing is injected.
#ifndef HAMI_DEVICES_AMD_ADMISSION_HPP
#define HAMI_DEVICES_AMD_ADMISSION_HPP

#include "amd_config.hpp"
#include "container.hpp"

namespace hami::devices::amd {

ContainerMutation mutate_container(const AmdConfig& config, const ContainerRef& container);

}  // namespace hami::devices::amd

#endif  // HAMI_DEVICES_AMD_ADMISSION_HPP
