#include "nvidia_admission.hpp"

#include <string>

#include "errors.hpp"
#include "hami/quantity.hpp"
#include "nvidia_requests.hpp"

namespace hami::devices::nvidia {

ContainerMutation mutate_container(const NvidiaConfig& config, const ContainerRef& c,
                                   std::string_view pod_runtime_class) {
  ContainerMutation m;

  const auto pct_text = c.resource(config.memory_percent_resource);
  std::optional<std::int64_t> pct;
  if (pct_text) {
    const auto q = Quantity::parse(*pct_text);
    pct = q ? q->as_int64() : std::nullopt;
    if (!pct || *pct < 0 || *pct > 100) {
      throw InvalidInput("invalid " + config.memory_percent_resource + " value " +
                         std::string(*pct_text) + " in container " + std::string(c.name) +
                         ": must be an integer between 0 and 100");
    }
  }

  check_request_values(config, c);

  if (const auto priority = c.limits.find(config.priority_resource)) {
    const auto q = Quantity::parse(*priority);
    const auto v = q ? q->ceil_int64() : std::nullopt;
    if (!v) {
      throw InvalidInput("invalid " + config.priority_resource + " value " +
                         std::string(*priority) + " in container " + std::string(c.name) +
                         ": must be an integer");
    }
    m.add_env(c, "CUDA_TASK_PRIORITY", std::to_string(*v));
  }

  if (!config.gpu_core_policy.empty() && config.gpu_core_policy != "default") {
    m.add_env(c, "GPU_CORE_UTILIZATION_POLICY", config.gpu_core_policy);
  }

  bool count_present = c.has_resource(config.count_resource);
  if (c.limits.contains(config.count_resource)) {
    m.uses_device = true;
  } else if ((c.limits.contains(config.cores_resource) ||
              c.limits.contains(config.memory_resource) ||
              c.limits.contains(config.memory_percent_resource)) &&
             config.default_gpu_num > 0 && !config.count_resource.empty()) {
    m.limits.emplace_back(config.count_resource, std::to_string(config.default_gpu_num));
    m.uses_device = true;
    count_present = true;
  }

  if (count_present && !config.cores_resource.empty() && !c.has_resource(config.cores_resource)) {
    bool exclusive = false;
    if (pct_text) {
      exclusive = *pct == 100;
    } else if (config.memory_resource.empty()) {
      exclusive = true;
    } else {
      exclusive = !c.has_resource(config.memory_resource);
    }
    if (exclusive) {
      m.limits.emplace_back(config.cores_resource, "100");
      m.uses_device = true;
    }
  }

  if (m.uses_device && pod_runtime_class.empty() && !config.runtime_class_name.empty()) {
    m.runtime_class = config.runtime_class_name;
  }
  if (!m.uses_device && config.overwrite_env) {
    m.add_env(c, "NVIDIA_VISIBLE_DEVICES", "none");
  }
  return m;
}

}  // namespace hami::devices::nvidia
