// The plugin a device test drives: loaded by name from the build's plugin
// folder with a config document, exposed through the DevicePluginHandle
// shape of interfaces §B.
#pragma once

#include <memory>
#include <string>

#include "raw_handle.hpp"

namespace hami::testing {

using CallError = RawCallError;

class DeviceUnderTest {
 public:
  // `plugin`: "nvidia" or "amd". Throws when loading or create fails.
  explicit DeviceUnderTest(const std::string& plugin, const std::string& config_json = "{}");
  ~DeviceUnderTest();

  const RawHandle& plugin() const { return *handle_; }

  static std::string library_path(const std::string& plugin);

 private:
  std::unique_ptr<RawLibrary> library_;
  std::unique_ptr<RawInstance> instance_;
  std::unique_ptr<RawHandle> handle_;
};

}  // namespace hami::testing
