// The device config this host's device plugins were given, compared with the
// one HAMi's device plugins read (config plugins.compareDeviceConfigMap: the
// `device-config.yaml` of a ConfigMap), so that what a node registers and
// what the scheduler expects of it come from the same keys. Beside a HAMi
// install the two are separate ConfigMaps that nothing keeps equal
// (docs/cutover.md §6).
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "log/logger.hpp"

namespace hami::kube {

class ApiClient;

struct DeviceConfigSection {
  std::string name;  // the device plugin entry's name: its section of HAMi's file
  std::string json;  // the config the plugin was given, a JSON object text
};

// The keys whose values differ, as "<section>.<key>" (nested mappings
// joined by '.'), sorted: set on one side only, or to other values. Lists
// and scalars compare whole (1 equals 1.0). Only the sections of `ours` are
// compared: HAMi's file holds every vendor's. A section HAMi's file lacks
// (or leaves empty) compares as {}. Throws std::runtime_error when
// `hami_yaml` is not a YAML mapping or a section of it not a mapping.
std::vector<std::string> device_config_differences(const std::vector<DeviceConfigSection>& ours,
                                                   std::string_view hami_yaml);

// Compares with the ConfigMap `<ns>/<name>` (key device-config.yaml)
// at start() and then every `interval`, and logs when the outcome changes:
// a warning naming the differing keys, a warning that the ConfigMap cannot
// be read or compared, or (info) that the two agree.
class DeviceConfigDriftCheck {
 public:
  static constexpr std::string_view kDataKey = "device-config.yaml";

  DeviceConfigDriftCheck(std::shared_ptr<ApiClient> api, std::string ns, std::string name,
                         std::vector<DeviceConfigSection> ours, const log::Logger& logger,
                         std::chrono::milliseconds interval = std::chrono::minutes(10));
  ~DeviceConfigDriftCheck();
  DeviceConfigDriftCheck(const DeviceConfigDriftCheck&) = delete;
  DeviceConfigDriftCheck& operator=(const DeviceConfigDriftCheck&) = delete;

  // One comparison, logged when its outcome differs from the last one.
  // Returns the differing keys; nullopt when the ConfigMap could not be
  // read or compared.
  std::optional<std::vector<std::string>> check();
  void start();
  void stop();

 private:
  std::shared_ptr<ApiClient> api_;
  std::string namespace_;
  std::string name_;
  std::vector<DeviceConfigSection> ours_;
  const log::Logger& logger_;
  std::chrono::milliseconds interval_;
  std::string last_outcome_;  // what was logged last
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace hami::kube
