// NVIDIA admission defaults (HAMi §2.3), per container, in HAMi's order:
//   1. a memory percentage (limits, else requests) must be an integer in
//      0..100: "invalid <res> value <v> in container <c>: must be an integer
//      between 0 and 100";
//   1b. (not HAMi's) the count, memory and cores values must be usable by
//      filter (nvidia_requests.hpp check_request_values), e.g. memory an
//      integer number of MiB: "invalid nvidia.com/gpumem value 8Gi in
//      container c: must be an integer number of MiB between 0 and
//      2147483647". HAMi admits such a pod and filter then sees no request
//      and passes every node (7.7#8); here it is denied;
//   2. limits[priority] → env CUDA_TASK_PRIORITY=<value>;
//   3. gpuCorePolicy other than "default" → env GPU_CORE_UTILIZATION_POLICY
//      on every container (HAMi 7.7#4, kept: the device-side limiter reads
//      it and it is harmless without a GPU);
//   4. limits[count] → uses a GPU; else limits with cores/memory/percentage
//      and defaultGPUNum > 0 → limits[count] = defaultGPUNum, uses a GPU;
//   5. count present and cores absent (limits and requests): a whole card is
//      meant when the percentage is 100, no memory resource is configured,
//      or no memory is requested → limits[cores] = 100, uses a GPU;
//   6. uses a GPU, pod without runtimeClassName, one configured → set it;
//   7. no GPU and overwriteEnv → env NVIDIA_VISIBLE_DEVICES=none.
// Env entries the container already defines are left alone (its own value
// wins), which also makes admission idempotent.
#ifndef HAMI_DEVICES_NVIDIA_ADMISSION_HPP
#define HAMI_DEVICES_NVIDIA_ADMISSION_HPP

#include <string_view>

#include "container.hpp"
#include "nvidia_config.hpp"

namespace hami::devices::nvidia {

// Throws InvalidInput with the message the webhook denies with.
ContainerMutation mutate_container(const NvidiaConfig& config, const ContainerRef& container,
                                   std::string_view pod_runtime_class);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_ADMISSION_HPP
