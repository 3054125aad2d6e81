// hami/admission.hpp — writing an admission plugin (HAMI_KIND_ADMISSION) in C++.
//
// Derive from hami::AdmissionPolicy, give the class a constructor
// `(const hami_host_info&, std::string_view config_json)`, and export it once
// per library:
//
//   HAMI_EXPORT_ADMISSION_PLUGIN(Vgpu, "vgpu", "1.0.0", "HAMi's webhook decision",
//                                kSchema, HAMI_FLAG_CONCURRENT_SAFE)
//
// Threading: `review` is called concurrently on one instance
// (HAMI-PLUGIN-8); set HAMI_FLAG_CONCURRENT_SAFE and keep the instance
// immutable after construction (or synchronise yourself).
#ifndef HAMI_ADMISSION_HPP
#define HAMI_ADMISSION_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "hami/admission.h"
#include "hami/plugin.hpp"

namespace hami {
inline namespace abi_v1 {

class AdmissionPolicy {
 public:
  AdmissionPolicy() = default;
  AdmissionPolicy(const AdmissionPolicy&) = delete;
  AdmissionPolicy& operator=(const AdmissionPolicy&) = delete;
  virtual ~AdmissionPolicy() = default;

  // Decides on one pod CREATE. `out` arrives zeroed with its sinks set; fill
  // verdict/code and write text with set_message / set_scheduler_name.
  virtual void review(const hami_admission_input& in, hami_admission_output& out) = 0;
};

// The outcome of a call into the host's hami_admission_host.
struct HostReply {
  hami_status status = HAMI_OK;
  std::string message;
  [[nodiscard]] bool ok() const noexcept { return status == HAMI_OK; }
};

namespace detail {
// Collects a host-written error buffer into a std::string.
struct ReplyBuffer {
  char text[512] = {};
  hami_errbuf view() noexcept { return hami_errbuf{text, sizeof text}; }
  HostReply reply(hami_status status) const {
    return HostReply{status, std::string(text, std::find(text, text + sizeof text, '\0'))};
  }
};

inline void append_to_string(void* ctx, const char* bytes, std::size_t len) noexcept {
  try {
    static_cast<std::string*>(ctx)->append(bytes, len);
  } catch (...) {
    // Out of memory while the host writes: the text is cut short; the call's
    // status still reaches the plugin.
  }
}
}  // namespace detail

// Runs every device plugin's defaults over the pod (at most once per review)
// and reports whether any container uses a managed vGPU afterwards.
inline HostReply apply_device_defaults(const hami_admission_input& in, bool& uses_managed) {
  uses_managed = false;
  if (in.host == nullptr || !HAMI_HAS_MEMBER(in.host, hami_admission_host, apply_device_defaults) ||
      in.host->apply_device_defaults == nullptr) {
    return HostReply{HAMI_UNIMPLEMENTED, "host offers no apply_device_defaults"};
  }
  detail::ReplyBuffer buffer;
  std::uint32_t flag = 0;
  const hami_status status = in.host->apply_device_defaults(in.host->ctx, &flag, buffer.view());
  uses_managed = flag != 0;
  return buffer.reply(status);
}

// Checks the pod's demand against the namespace's quotas.
inline HostReply check_quota(const hami_admission_input& in) {
  if (in.host == nullptr || !HAMI_HAS_MEMBER(in.host, hami_admission_host, check_quota) ||
      in.host->check_quota == nullptr) {
    return HostReply{HAMI_UNIMPLEMENTED, "host offers no check_quota"};
  }
  detail::ReplyBuffer buffer;
  return buffer.reply(in.host->check_quota(in.host->ctx, buffer.view()));
}

// The value of label `key` on the pod's namespace, written into `value`.
// The status is HAMI_NOT_FOUND / HAMI_UNAVAILABLE as admission.h states.
inline hami_status namespace_label(const hami_admission_input& in, std::string_view key,
                                   std::string& value) {
  value.clear();
  if (in.host == nullptr || !HAMI_HAS_MEMBER(in.host, hami_admission_host, namespace_label) ||
      in.host->namespace_label == nullptr) {
    return HAMI_UNIMPLEMENTED;
  }
  return in.host->namespace_label(in.host->ctx, to_str(key),
                                  hami_sink{&value, &detail::append_to_string});
}

inline void set_message(const hami_admission_output& out, std::string_view text) {
  sink_append(out.message, text);
}

inline void set_scheduler_name(const hami_admission_output& out, std::string_view name) {
  sink_append(out.scheduler_name, name);
}

namespace detail {

inline hami_status admission_review(hami_instance* instance, const hami_admission_input* in,
                                    hami_admission_output* out, hami_errbuf err) noexcept {
  return guard(err, [&] {
    const hami_admission_input input = read_struct(in, "in");
    require(input.pod, "in->pod");
    hami_admission_output output = read_struct(out, "out");
    self<AdmissionPolicy>(instance).review(input, output);
    write_struct(out, output);
  });
}

template <class Impl>
struct AdmissionAdapter {
  static_assert(std::is_base_of_v<AdmissionPolicy, Impl>,
                "HAMI_EXPORT_ADMISSION_PLUGIN: the class must derive from hami::AdmissionPolicy");
  static_assert(std::is_constructible_v<Impl, const hami_host_info&, std::string_view>,
                "HAMI_EXPORT_ADMISSION_PLUGIN: the class needs a constructor "
                "(const hami_host_info&, std::string_view config_json)");

  static constexpr hami_admission_vtable vtable{
      static_cast<std::uint32_t>(sizeof(hami_admission_vtable)),
      &create_instance<AdmissionPolicy, Impl>,
      &destroy_instance<AdmissionPolicy>,
      &admission_review,
  };
};

}  // namespace detail
}  // namespace abi_v1
}  // namespace hami

// Exports `Class` as this library's admission plugin; arguments as for
// HAMI_EXPORT_DEVICE_PLUGIN (device.hpp).
#define HAMI_EXPORT_ADMISSION_PLUGIN(Class, name, version, description, schema, flags)         \
  HAMI_DETAIL_EXPORT_NEGOTIATE(HAMI_KIND_ADMISSION, name, version, description, schema, flags, \
                               &::hami::detail::AdmissionAdapter<Class>::vtable)

#endif  // HAMI_ADMISSION_HPP
