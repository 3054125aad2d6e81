#include "nvidia_config.hpp"

#include <algorithm>

#include "config_document.hpp"

namespace hami::devices::nvidia {

const char* const kConfigSchema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "title": "nvidia device plugin (HAMi device-config.yaml section 'nvidia')",
  "type": "object",
  "definitions": {
    "name": {"type": ["string", "null"]},
    "int32": {"type": ["integer", "null"], "minimum": 0, "maximum": 2147483647},
    "flag": {"type": ["boolean", "null"]},
    "ratio": {"type": ["number", "null"], "minimum": 0}
  },
  "properties": {
    "resourceCountName": {"$ref": "#/definitions/name", "default": "nvidia.com/gpu",
      "description": "resource holding the number of physical GPUs per container"},
    "resourceMemoryName": {"$ref": "#/definitions/name", "default": "nvidia.com/gpumem",
      "description": "resource holding MiB per GPU"},
    "resourceMemoryPercentageName": {"$ref": "#/definitions/name",
      "default": "nvidia.com/gpumem-percentage",
      "description": "resource holding the percent of each GPU's memory"},
    "resourceCoreName": {"$ref": "#/definitions/name", "default": "nvidia.com/gpucores",
      "description": "resource holding the percent of each GPU's compute"},
    "resourcePriorityName": {"$ref": "#/definitions/name", "default": "nvidia.com/priority",
      "description": "resource copied into CUDA_TASK_PRIORITY"},
    "overwriteEnv": {"$ref": "#/definitions/flag", "default": false,
      "description": "add NVIDIA_VISIBLE_DEVICES=none to containers without GPUs"},
    "defaultMemory": {"$ref": "#/definitions/int32", "default": 0,
      "description": "MiB used when neither memory nor percentage is requested"},
    "defaultCores": {"type": ["integer", "null"], "minimum": 0, "maximum": 100, "default": 0,
      "description": "compute percent used when not requested"},
    "defaultGPUNum": {"$ref": "#/definitions/int32", "default": 1,
      "description": "count injected when only memory/cores are requested; 0 disables"},
    "memoryFactor": {"$ref": "#/definitions/int32", "default": 1,
      "description": "memory request multiplier; 0 means 1"},
    "gpuCorePolicy": {"enum": ["default", "force", "disable", "", null], "default": "default",
      "description": "non-default values are injected as GPU_CORE_UTILIZATION_POLICY"},
    "runtimeClassName": {"$ref": "#/definitions/name", "default": "",
      "description": "runtimeClassName set on GPU pods that have none"},
    "migProfileAllowlist": {
      "type": ["array", "null"],
      "description": "MIG profiles per GPU model (read by the node device plugin); HAMi's ValidateMigProfileAllowlist: models and profiles non-empty, each profile '<x>g.<...>' with at least one character before the 'g'",
      "items": {
        "type": "object",
        "required": ["models", "profiles"],
        "properties": {
          "models": {"type": "array", "minItems": 1, "items": {"type": "string"}},
          "profiles": {"type": "array", "minItems": 1,
                       "items": {"type": "string", "pattern": "^[^.]+g\\."}}
        }
      }
    },
    "knownMigGeometries": {"type": ["array", "null"],
      "description": "pre-v2.10 MIG geometry list, accepted and ignored"},
    "disableCoreLimit": {"$ref": "#/definitions/flag"},
    "deviceSplitCount": {"$ref": "#/definitions/int32"},
    "deviceMemoryScaling": {"$ref": "#/definitions/ratio"},
    "deviceCoreScaling": {"$ref": "#/definitions/ratio"},
    "preConfiguredDeviceMemory": {"type": ["integer", "null"], "minimum": 0},
    "libCudaLogLevel": {"type": ["integer", "string", "null"]},
    "enableNumaTopology": {"$ref": "#/definitions/flag"}
  }
})json";

NvidiaConfig parse_config(std::string_view json) {
  const ConfigDocument doc(json, kConfigSchema);
  NvidiaConfig c;
  read_share_resources(doc, c);
  c.memory_percent_resource =
      doc.string_or("resourceMemoryPercentageName", c.memory_percent_resource);
  c.priority_resource = doc.string_or("resourcePriorityName", c.priority_resource);
  c.overwrite_env = doc.bool_or("overwriteEnv", c.overwrite_env);
  c.default_memory = static_cast<std::int32_t>(doc.int_or("defaultMemory", c.default_memory));
  c.default_cores = static_cast<std::int32_t>(doc.int_or("defaultCores", c.default_cores));
  c.default_gpu_num = static_cast<std::int32_t>(doc.int_or("defaultGPUNum", c.default_gpu_num));
  c.memory_factor =
      std::max<std::int32_t>(1, static_cast<std::int32_t>(doc.int_or("memoryFactor", 1)));
  c.gpu_core_policy = doc.string_or("gpuCorePolicy", c.gpu_core_policy);
  c.runtime_class_name = doc.string_or("runtimeClassName", c.runtime_class_name);
  return c;
}

}  // namespace hami::devices::nvidia
