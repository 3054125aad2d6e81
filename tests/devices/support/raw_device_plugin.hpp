// A device plugin opened with dlopen and driven through its raw C vtable,
// with results shaped like the host's DevicePluginHandle (interfaces §B), so
// tests read the same either way. Used where the host loader is not wanted:
// conformance checks that poke at the ABI directly (destroy(NULL), error
// buffer truncation, bad struct sizes).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hami/device.h"

namespace hami::testing {

class RawCallError : public std::runtime_error {
 public:
  RawCallError(hami_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  hami_status status() const noexcept { return status_; }

 private:
  hami_status status_;
};

// Keeps the library mapped; closes it on destruction.
class RawLibrary {
 public:
  explicit RawLibrary(const std::filesystem::path& file);
  RawLibrary(const RawLibrary&) = delete;
  RawLibrary& operator=(const RawLibrary&) = delete;
  ~RawLibrary();

  // Negotiates as an ABI 1.0 host; throws RawCallError when refused.
  hami_plugin_info negotiate(std::uint16_t abi_major = HAMI_ABI_MAJOR,
                             std::uint16_t abi_minor = HAMI_ABI_MINOR) const;
  hami_plugin_negotiate_t* entry() const noexcept { return entry_; }
  static const hami_host_info& host_info();

 private:
  void* handle_ = nullptr;
  hami_plugin_negotiate_t* entry_ = nullptr;
};

class RawInstance {
 public:
  // Throws RawCallError with the plugin's message when create fails.
  RawInstance(const RawLibrary& library, std::string_view config_json);
  RawInstance(const RawInstance&) = delete;
  RawInstance& operator=(const RawInstance&) = delete;
  ~RawInstance();

  const hami_device_vtable& vtable() const noexcept { return *vtable_; }
  hami_instance* get() const noexcept { return instance_; }

 private:
  const hami_device_vtable* vtable_ = nullptr;
  hami_instance* instance_ = nullptr;
};

}  // namespace hami::testing
