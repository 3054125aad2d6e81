// hami/plugin.hpp — C++ authoring support shared by every plugin kind.
//
// Header-only, C++20. Plugin authors include device.hpp, admission.hpp or
// scheduling.hpp; this header holds what they share:
//   - hami::Error, the exception plugin code throws to fail a call with a
//     chosen status;
//   - small conversions between the C vocabulary types and std::string_view;
//   - hami::Host, a copy of what the host offered at create time (logging,
//     clock) that checks struct sizes before every use;
//   - the exception barrier every exported trampoline runs inside.
//
// Everything lives in hami::abi_v1 (an inline namespace), so code built
// against a different ABI major cannot be linked with this one by accident.
// No C++ type ever crosses the ABI (HAMI-PLUGIN-5): the trampolines below turn
// every exception into a status code and an error-buffer message.
#ifndef HAMI_PLUGIN_HPP
#define HAMI_PLUGIN_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "hami/plugin.h"
#include "hami/struct_sizes.hpp"

namespace hami {
inline namespace abi_v1 {

// Thrown by plugin code to fail the current call with `status` and a message
// that reaches the host through the call's error buffer. Throwing it with
// HAMI_OK is a bug and is reported as HAMI_INTERNAL.
class Error : public std::runtime_error {
 public:
  Error(hami_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  Error(hami_status status, const char* message) : std::runtime_error(message), status_(status) {}

  [[nodiscard]] hami_status status() const noexcept { return status_; }

 private:
  hami_status status_;
};

// A borrowed view of a hami_str; tolerates {NULL, 0}.
[[nodiscard]] inline std::string_view to_sv(hami_str s) noexcept {
  return s.ptr == nullptr ? std::string_view{} : std::string_view{s.ptr, s.len};
}

// A hami_str borrowing `s`; valid as long as the viewed characters are.
[[nodiscard]] inline hami_str to_str(std::string_view s) noexcept {
  return hami_str{s.data(), s.size()};
}

// Writes `message` into a host-owned error buffer: at most cap-1 bytes and a
// terminating NUL; nothing at all when cap is 0 (HAMI-PLUGIN-4).
inline void write_error(hami_errbuf err, std::string_view message) noexcept {
  if (err.cap == 0 || err.buf == nullptr) {
    return;
  }
  const std::size_t n = std::min(message.size(), err.cap - 1);
  if (n != 0) {
    std::memcpy(err.buf, message.data(), n);
  }
  err.buf[n] = '\0';
}

// Appends bytes to a host-owned sink. Empty text is not sent: "nothing
// written" and "empty text written" mean the same to every host sink.
inline void sink_append(hami_sink sink, std::string_view bytes) noexcept {
  if (sink.append != nullptr && !bytes.empty()) {
    sink.append(sink.ctx, bytes.data(), bytes.size());
  }
}

// What the host offered in hami_host_info, kept by value so an instance can
// log and read the clock after `create` returned (the hami_host_info struct
// itself is borrowed for the call; the api table and context are not).
class Host {
 public:
  Host() = default;

  // Reads only the members `info.struct_size` covers. Throws hami::Error
  // (HAMI_INVALID_ARGUMENT) when the struct is smaller than ABI 1.0's.
  explicit Host(const hami_host_info& info) {
    if (info.struct_size < v1_0_size<hami_host_info>) {
      throw Error(HAMI_INVALID_ARGUMENT,
                  "hami_host_info.struct_size " + std::to_string(info.struct_size) +
                      " is smaller than ABI 1.0's " + std::to_string(v1_0_size<hami_host_info>));
    }
    abi_major_ = info.abi_major;
    abi_minor_ = info.abi_minor;
    api_ = info.host;
    ctx_ = info.host_ctx;
    version_.assign(to_sv(info.host_version));
  }

  [[nodiscard]] std::uint16_t abi_major() const noexcept { return abi_major_; }
  [[nodiscard]] std::uint16_t abi_minor() const noexcept { return abi_minor_; }
  [[nodiscard]] const std::string& version() const noexcept { return version_; }

  // One log line attributed to the plugin; dropped when the host offers no
  // logger (a default-constructed Host).
  void log(std::int32_t level, std::string_view message) const noexcept {
    if (api_ != nullptr && HAMI_HAS_MEMBER(api_, hami_host_api, log) && api_->log != nullptr) {
      api_->log(ctx_, level, to_str(message));
    }
  }
  void debug(std::string_view message) const noexcept { log(HAMI_LOG_DEBUG, message); }
  void info(std::string_view message) const noexcept { log(HAMI_LOG_INFO, message); }
  void warn(std::string_view message) const noexcept { log(HAMI_LOG_WARN, message); }
  void error(std::string_view message) const noexcept { log(HAMI_LOG_ERROR, message); }

  // The host's wall clock in Unix seconds (tests move it). Falls back to the
  // system clock only when there is no host table, i.e. outside a host.
  [[nodiscard]] std::int64_t now_unix() const noexcept {
    if (api_ != nullptr && HAMI_HAS_MEMBER(api_, hami_host_api, now_unix) &&
        api_->now_unix != nullptr) {
      return api_->now_unix(ctx_);
    }
    return static_cast<std::int64_t>(std::time(nullptr));
  }

 private:
  std::uint16_t abi_major_ = 0;
  std::uint16_t abi_minor_ = 0;
  const hami_host_api* api_ = nullptr;
  void* ctx_ = nullptr;
  std::string version_;
};

namespace detail {

// The catch-all exception barrier. Runs `body` (returning void or
// hami_status) and turns every exception into a status and a message in
// `err`, so nothing thrown inside a plugin unwinds into the host.
template <class F>
hami_status guard(hami_errbuf err, F&& body) noexcept {
  try {
    if constexpr (std::is_same_v<std::invoke_result_t<F&>, hami_status>) {
      return body();
    } else {
      body();
      return HAMI_OK;
    }
  } catch (const Error& e) {
    write_error(err, e.what());
    return e.status() == HAMI_OK ? HAMI_INTERNAL : e.status();
  } catch (const std::bad_alloc&) {
    write_error(err, "out of memory (std::bad_alloc)");
    return HAMI_RESOURCE_EXHAUSTED;
  } catch (const std::exception& e) {
    write_error(err, e.what());
    return HAMI_INTERNAL;
  } catch (...) {
    write_error(err, "unknown exception");
    return HAMI_INTERNAL;
  }
}

// Fails the call unless `p` points at a T whose struct_size covers ABI 1.0.
template <class T>
const T& require(const T* p, const char* what) {
  if (p == nullptr) {
    throw Error(HAMI_INVALID_ARGUMENT, std::string(what) + " is NULL");
  }
  if (p->struct_size < v1_0_size<T>) {
    throw Error(HAMI_INVALID_ARGUMENT, std::string(what) + ": " + struct_abi<T>::name +
                                           ".struct_size " + std::to_string(p->struct_size) +
                                           " is smaller than ABI 1.0's " +
                                           std::to_string(v1_0_size<T>));
  }
  return *p;
}

// A full-size copy of a host struct: members the host did not send (it was
// built against an older minor) read as zero, so plugin code can use every
// member it knows without checking sizes.
template <class T>
T read_struct(const T* p, const char* what) {
  const T& src = require(p, what);
  T copy{};
  std::memcpy(static_cast<void*>(&copy), static_cast<const void*>(&src),
              std::min<std::size_t>(src.struct_size, sizeof(T)));
  copy.struct_size = static_cast<std::uint32_t>(sizeof(T));
  return copy;
}

// Writes `value` back into a host-owned out struct, no further than the host's
// struct_size reaches, and keeps the host's struct_size (HAMI-PLUGIN-2).
// copy_out assumes `p` was checked with require(); write_struct checks.
template <class T>
void copy_out(T* p, const T& value) noexcept {
  const std::uint32_t host_size = p->struct_size;
  std::memcpy(static_cast<void*>(p), static_cast<const void*>(&value),
              std::min<std::size_t>(host_size, sizeof(T)));
  p->struct_size = host_size;
}

template <class T>
void write_struct(T* p, const T& value) {
  require(p, "out");
  copy_out(p, value);
}

// The instance behind an opaque handle.
template <class Base>
Base& self(hami_instance* instance) {
  if (instance == nullptr) {
    throw Error(HAMI_INVALID_ARGUMENT, "instance is NULL");
  }
  return *reinterpret_cast<Base*>(instance);
}

[[nodiscard]] inline std::string_view cstr_view(const char* s) noexcept {
  return s == nullptr ? std::string_view{} : std::string_view{s};
}

// The vtable's `create` for implementation class Impl of interface Base.
// Allocation and construction run inside the barrier.
template <class Base, class Impl>
hami_status create_instance(const hami_host_info* host, hami_str config_json, hami_instance** out,
                            hami_errbuf err) noexcept {
  return guard(err, [&] {
    if (out == nullptr) {
      throw Error(HAMI_INVALID_ARGUMENT, "create: out is NULL");
    }
    *out = nullptr;
    const hami_host_info& info = require(host, "create: host");
    auto object = std::make_unique<Impl>(info, to_sv(config_json));
    Base* base = object.release();
    *out = reinterpret_cast<hami_instance*>(base);
  });
}

// The vtable's `destroy`; destroy(NULL) is a no-op (HAMI-PLUGIN-7).
template <class Base>
void destroy_instance(hami_instance* instance) noexcept {
  std::unique_ptr<Base> owned(reinterpret_cast<Base*>(instance));
}

// The body of hami_plugin_negotiate for every kind. The first three members
// of hami_host_info and hami_plugin_info (struct_size, abi_major,
// abi_minor) keep their place in every ABI major, so the plugin always
// reports its version, even to a host it refuses (HAMI-HOST-3).
inline hami_status negotiate(const hami_host_info* in, hami_plugin_info* out, hami_errbuf err,
                             std::uint32_t kind, const char* name, const char* version,
                             const char* description, const char* config_schema,
                             std::uint32_t flags, const void* vtable) noexcept {
  return guard(err, [&] {
    constexpr std::size_t version_prefix = offsetof(hami_plugin_info, abi_minor) + sizeof(uint16_t);
    if (out == nullptr || out->struct_size < version_prefix) {
      throw Error(HAMI_INVALID_ARGUMENT, "hami_plugin_negotiate: out is NULL or too small");
    }
    out->abi_major = HAMI_ABI_MAJOR;
    out->abi_minor = HAMI_ABI_MINOR;
    if (in == nullptr || in->struct_size < offsetof(hami_host_info, abi_minor) + sizeof(uint16_t)) {
      throw Error(HAMI_INVALID_ARGUMENT, "hami_plugin_negotiate: host info is NULL or too small");
    }
    if (in->abi_major != HAMI_ABI_MAJOR) {
      throw Error(HAMI_FAILED_PRECONDITION,
                  "plugin is built for hami ABI " + std::to_string(HAMI_ABI_MAJOR) + "." +
                      std::to_string(HAMI_ABI_MINOR) + ", host offers " +
                      std::to_string(in->abi_major) + "." + std::to_string(in->abi_minor));
    }
    require(in, "hami_plugin_negotiate: host info");

    hami_plugin_info info{};
    info.struct_size = static_cast<std::uint32_t>(sizeof info);
    info.abi_major = HAMI_ABI_MAJOR;
    info.abi_minor = HAMI_ABI_MINOR;
    info.kind = kind;
    info.flags = flags;
    info.name = to_str(cstr_view(name));
    info.version = to_str(cstr_view(version));
    info.description = to_str(cstr_view(description));
    info.config_schema = to_str(cstr_view(config_schema));
    info.vtable = vtable;
    write_struct(out, info);
  });
}

}  // namespace detail
}  // namespace abi_v1
}  // namespace hami

// Shared part of the three export macros: the one exported symbol, declared
// through the ABI's function type so a signature mismatch cannot compile.
#define HAMI_DETAIL_EXPORT_NEGOTIATE(kind, name, version, description, schema, flags, vtable_ptr) \
  extern "C" HAMI_EXPORT hami_plugin_negotiate_t hami_plugin_negotiate;                           \
  extern "C" HAMI_EXPORT hami_status hami_plugin_negotiate(                                       \
      const hami_host_info* in, hami_plugin_info* out, hami_errbuf err) {                         \
    return ::hami::detail::negotiate(in, out, err, (kind), (name), (version), (description),      \
                                     (schema), (flags), (vtable_ptr));                            \
  }

#endif  // HAMI_PLUGIN_HPP
