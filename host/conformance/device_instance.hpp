// DeviceInstance: a device plugin instance made with the config "{}" for a
// conformance check, destroyed at scope exit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "conformance/check_context.hpp"
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

// The start of a check of the members ABI minor `minor` appended: skips a
// plugin of an older minor (their members read as the defaults), else makes
// `inst` with "{}" and fills `d` from describe. False, after recording why,
// when the check cannot go on.
inline bool describe_for_minor(const PluginUnderTest& p, CheckContext& c, uint16_t minor,
                               std::optional<DeviceInstance>& inst, hami_device_description& d) {
  if (p.info().abi_minor < minor) {
    c.skip("reports ABI " + std::to_string(p.info().abi_major) + "." +
           std::to_string(p.info().abi_minor) + ": the 1." + std::to_string(minor) +
           " members read as their defaults");
    return false;
  }
  const hami_device_vtable& vt = p.vtable<hami_device_vtable>();
  if (!c.expect(vt.struct_size >= offsetof(hami_device_vtable, decode_allocation) + sizeof(void*) &&
                    vt.create != nullptr && vt.destroy != nullptr && vt.describe != nullptr,
                "the device vtable is incomplete (see device-vtable)")) {
    return false;
  }
  inst.emplace(vt);
  if (!c.expect(inst->status() == HAMI_OK, "create({}) failed: " + inst->message())) {
    return false;
  }
  d = hami_device_description{};
  d.struct_size = sizeof d;
  char err[1024] = {};
  const hami_status s = vt.describe(inst->get(), &d, hami_errbuf{err, sizeof err});
  return c.expect(s == HAMI_OK, "describe failed: " + status_name(s) + " " + err);
}

}  // namespace hami::conformance
