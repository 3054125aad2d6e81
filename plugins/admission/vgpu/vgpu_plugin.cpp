// The library's one export: VgpuPolicy as admission plugin "vgpu".
#include <hami/admission.hpp>

#include "vgpu_config.hpp"
#include "vgpu_policy.hpp"

HAMI_EXPORT_ADMISSION_PLUGIN(hami::vgpu::VgpuPolicy, "vgpu", "1.0.0",
                             "Sends pods that use managed vGPU resources to this scheduler "
                             "(HAMi's webhook decision)",
                             hami::vgpu::kVgpuConfigSchema, HAMI_FLAG_CONCURRENT_SAFE)
