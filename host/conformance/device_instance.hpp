// DeviceInstance: a device plugin instance made with the config "{}" for a
// conformance check, destroyed at scope exit.
#pragma once

#include <string>

#include "conformance/plugin_under_test.hpp"
#include "hami/device.h"

namespace hami::conformance {

class DeviceInstance {
 public:
  explicit DeviceInstance(const hami_device_vtable& vt) : vt_(vt) {
    char err[1024] = {};
    status_ = vt_.create(&PluginUnderTest::host_info(), hami_str{"{}", 2}, &instance_,
                         hami_errbuf{err, sizeof err});
    message_ = err;
  }
  ~DeviceInstance() {
    if (status_ == HAMI_OK && instance_ != nullptr) {
      vt_.destroy(instance_);
    }
  }
  DeviceInstance(const DeviceInstance&) = delete;
  DeviceInstance& operator=(const DeviceInstance&) = delete;
  [[nodiscard]] hami_status status() const { return status_; }
  [[nodiscard]] const std::string& message() const { return message_; }
  [[nodiscard]] hami_instance* get() const { return instance_; }

 private:
  const hami_device_vtable& vt_;
  hami_instance* instance_ = nullptr;
  hami_status status_ = HAMI_INTERNAL;
  std::string message_;
};

}  // namespace hami::conformance
