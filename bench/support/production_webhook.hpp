// The admission webhook as production sets it up, in process: nvidia.so and
// amd.so with the shipped device config (config/device-config.yaml),
// vgpu.so with its defaults, no cluster view.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "admission/admission_service.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_loader.hpp"

namespace hami::bench {

class ProductionWebhook {
 public:
  // `plugin_dir` holds the built plugins, `source_dir` is the repository.
  ProductionWebhook(const std::string& plugin_dir, const std::string& source_dir);
  ProductionWebhook(const ProductionWebhook&) = delete;
  ProductionWebhook& operator=(const ProductionWebhook&) = delete;

  const admission::AdmissionService& service() const { return *service_; }

 private:
  host::HostServices services_;
  std::vector<host::DevicePluginHandle> devices_;
  std::optional<host::AdmissionPluginHandle> policy_;
  std::optional<admission::AdmissionService> service_;
};

// The whole text of a file; throws std::runtime_error naming it when it
// cannot be read.
std::string read_file(const std::string& path);

}  // namespace hami::bench
