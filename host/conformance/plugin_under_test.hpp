// PluginUnderTest: one plugin file opened at the raw C ABI (dlopen with
// RTLD_NOW | RTLD_LOCAL) and negotiated once as a host of this build's ABI,
// for the conformance checks — which call vtable functions in ways the
// host's loader never would (destroy(NULL), error buffers of capacity 0,
// configs the loader would refuse).
//
// Construction throws CannotLoad when the file cannot be opened, exports no
// hami_plugin_negotiate, or refuses to negotiate: such a file is not a
// plugin any host could use, and there is nothing to check.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "hami/admission.h"
#include "hami/device.h"
#include "hami/plugin.h"
#include "hami/scheduling.h"

namespace hami::conformance {

class CannotLoad : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PluginUnderTest {
 public:
  explicit PluginUnderTest(std::filesystem::path file);
  ~PluginUnderTest();
  PluginUnderTest(const PluginUnderTest&) = delete;
  PluginUnderTest& operator=(const PluginUnderTest&) = delete;

  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }
  [[nodiscard]] const hami_plugin_info& info() const noexcept { return info_; }
  [[nodiscard]] uint32_t kind() const noexcept { return info_.kind; }
  [[nodiscard]] std::string name() const { return text(info_.name); }

  // Negotiates again with `out` (zeroed and sized by the caller), the given
  // host major and error buffer.
  hami_status negotiate(hami_plugin_info& out, hami_errbuf err,
                        uint16_t host_major = HAMI_ABI_MAJOR) const;

  // The header every vtable starts with; the kind's vtable.
  [[nodiscard]] const hami_vtable_header& header() const {
    return *static_cast<const hami_vtable_header*>(info_.vtable);
  }
  template <class Vtable>
  [[nodiscard]] const Vtable& vtable() const {
    return *static_cast<const Vtable*>(info_.vtable);
  }

  // The host info every check passes: a discarding logger and a fixed clock
  // (2026-01-01T00:00:00Z).
  [[nodiscard]] static const hami_host_info& host_info() noexcept;

  static std::string text(hami_str s) {
    return s.ptr == nullptr ? std::string() : std::string(s.ptr, s.len);
  }

 private:
  std::filesystem::path file_;
  void* handle_ = nullptr;
  hami_plugin_negotiate_t* entry_ = nullptr;
  hami_plugin_info info_{};
};

// "device", "admission", "scheduling", or "kind N".
std::string kind_word(uint32_t kind);

// "HAMI_NOT_FOUND (5)"; "status N" for codes plugin.h does not define.
std::string status_name(hami_status status);

// `text` for a report: bytes outside printable ASCII as \xNN, cut after
// `limit` bytes with the full size noted.
std::string printable(std::string_view text, std::size_t limit = 40);

}  // namespace hami::conformance
