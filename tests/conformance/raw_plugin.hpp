// RawPlugin: a plugin library opened and negotiated directly at the C ABI,
// without the host's loader — for tests that must call vtable functions in
// ways the host never would (destroy(NULL), errbuf capacities 0 and 1,
// configs the loader would have rejected).
#pragma once

#include <boost/dll/shared_library.hpp>
#include <cstdint>
#include <filesystem>
#include <string>

#include "hami/admission.h"
#include "hami/device.h"
#include "hami/plugin.h"
#include "hami/scheduling.h"

namespace hami::test {

class RawPlugin {
 public:
  // Opens `file` (rtld_now | rtld_local) and negotiates once as a 1.0 host.
  // Throws std::runtime_error when the file cannot be opened or has no entry
  // point; a refused negotiation is kept in status().
  explicit RawPlugin(const std::filesystem::path& file);

  // Negotiates again with the given host major and errbuf; `out` is zeroed
  // and sized by the caller.
  hami_status negotiate(hami_plugin_info& out, hami_errbuf err,
                        uint16_t host_major = HAMI_ABI_MAJOR) const;

  [[nodiscard]] hami_status status() const noexcept { return status_; }
  [[nodiscard]] const std::string& message() const noexcept { return message_; }
  [[nodiscard]] const hami_plugin_info& info() const noexcept { return info_; }
  [[nodiscard]] std::string name() const { return text(info_.name); }

  // The header every vtable starts with (struct_size, create, destroy).
  [[nodiscard]] const hami_vtable_header& header() const {
    return *static_cast<const hami_vtable_header*>(info_.vtable);
  }
  template <class Vtable>
  [[nodiscard]] const Vtable& vtable() const {
    return *static_cast<const Vtable*>(info_.vtable);
  }

  // A hami_host_info for create; its services discard logs and report a
  // fixed clock.
  [[nodiscard]] static hami_host_info host_info();

  static std::string text(hami_str s) {
    return s.ptr == nullptr ? std::string() : std::string(s.ptr, s.len);
  }

 private:
  boost::dll::shared_library library_;
  hami_plugin_negotiate_t* entry_ = nullptr;
  hami_plugin_info info_{};
  hami_status status_ = HAMI_OK;
  std::string message_;
};

}  // namespace hami::test
