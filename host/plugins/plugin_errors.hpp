// Errors of the plugin layer: PluginLoadError when a plugin cannot be
// loaded (each cause its own kind), PluginCallError when a loaded plugin's
// call fails or returns output that breaks the ABI contract.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "hami/plugin.h"

namespace hami::host {

enum class PluginErrorKind {
  CannotOpen,          // no such file, not a shared object, dlopen failed
  MissingEntryPoint,   // hami_plugin_negotiate not exported
  NegotiationRefused,  // the plugin's negotiate returned an error
  AbiMajorMismatch,    // plugin and host ABI majors differ
  WrongKind,           // e.g. an admission plugin listed as a device plugin
  InvalidVtable,       // no/short vtable, missing required function, bad info
  ConfigRejected,      // config or the plugin's schema fails validation
  CreateFailed,        // create (or the first describe) failed
  PluginThrew,         // an exception escaped the plugin across the C ABI
  InsecureFile,        // plugin file or directory group/world-writable
  OutsideDirectory,    // library name resolves outside the plugin directory
};

// "CannotOpen", "MissingEntryPoint", … (the enumerator's name).
std::string_view to_string(PluginErrorKind kind);

// Thrown by the loader. The message names the configured plugin and its file
// and says what is wrong (versions, missing function, JSON path + rule).
class PluginLoadError : public std::runtime_error {
 public:
  PluginLoadError(PluginErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  [[nodiscard]] PluginErrorKind kind() const noexcept { return kind_; }

 private:
  PluginErrorKind kind_;
};

// Thrown by handle methods: "<plugin>.<function>: <plugin message>".
// status() is the plugin's status; codes outside the ABI's list become
// HAMI_INTERNAL (HAMI-HOST-6), as does output that breaks the contract.
class PluginCallError : public std::runtime_error {
 public:
  PluginCallError(hami_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  [[nodiscard]] hami_status status() const noexcept { return status_; }

 private:
  hami_status status_;
};

// "OK", "INVALID_ARGUMENT", …; "UNKNOWN_STATUS" for values outside the ABI.
std::string_view status_name(hami_status status);

// True for the status codes plugin.h defines.
bool is_known_status(hami_status status);

}  // namespace hami::host
