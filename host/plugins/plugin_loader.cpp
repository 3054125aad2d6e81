#include "plugins/plugin_loader.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include "hami/struct_sizes.hpp"
#include "plugins/config_schema.hpp"
#include "plugins/plugin_call.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_file.hpp"

namespace hami::host {
namespace fs = std::filesystem;
namespace {

std::string host_abi() {
  return abi_version_text(HAMI_ABI_MAJOR, HAMI_ABI_MINOR);
}

std::string status_text(hami_status status) {
  return is_known_status(status) ? std::string(status_name(status))
                                 : "unknown status " + std::to_string(status);
}

std::string with_message(const std::string& head, const std::string& message) {
  return message.empty() ? head + " and no message" : head + ": " + message;
}

// A string from hami_plugin_info; {NULL, n > 0} breaks the ABI.
std::string info_text(hami_str s, const char* member, const std::string& label) {
  if (s.ptr == nullptr) {
    if (s.len != 0) {
      throw PluginLoadError(PluginErrorKind::InvalidVtable,
                            label + ": invalid plugin info: " + member + " is NULL with length " +
                                std::to_string(s.len));
    }
    return {};
  }
  return std::string(s.ptr, s.len);
}

bool valid_plugin_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

// Opens and negotiates one library (HAMI-HOST-3, HAMI-HOST-4).
std::shared_ptr<PluginLibrary> open_library(const fs::path& file, const PluginSpec& spec,
                                            const std::string& label, const HostServices& services,
                                            PluginInfo& info, const void*& vtable) {
  auto library = PluginLibrary::open(file, label, services);
  const hami_host_info host = library->host_info(spec.name);
  hami_plugin_info out{};
  out.struct_size = static_cast<uint32_t>(sizeof out);
  ErrorBuffer err;
  hami_status status = HAMI_OK;
  try {
    status = library->negotiate_entry()(&host, &out, err.view());
  } catch (const std::exception& e) {
    throw PluginLoadError(
        PluginErrorKind::PluginThrew,
        label + ": hami_plugin_negotiate threw an exception across the ABI: " + e.what());
  } catch (...) {
    throw PluginLoadError(
        PluginErrorKind::PluginThrew,
        label + ": hami_plugin_negotiate threw an unknown exception across the ABI");
  }

  // The version prefix is readable whatever the plugin's major, so a refusal
  // by a plugin of another major still reports both versions.
  const std::string plugin_abi = abi_version_text(out.abi_major, out.abi_minor);
  const bool major_differs = out.abi_major != HAMI_ABI_MAJOR;
  if (major_differs && (status == HAMI_OK || out.abi_major != 0)) {
    throw PluginLoadError(PluginErrorKind::AbiMajorMismatch,
                          label + ": plugin ABI " + plugin_abi + " is incompatible with host ABI " +
                              host_abi() +
                              " (major versions differ; rebuild the plugin against "
                              "hami SDK " +
                              std::to_string(HAMI_ABI_MAJOR) + ".x)");
  }
  if (status != HAMI_OK) {
    throw PluginLoadError(
        PluginErrorKind::NegotiationRefused,
        with_message(label + ": negotiation refused with " + status_text(status) + " (plugin ABI " +
                         plugin_abi + ", host ABI " + host_abi() + ")",
                     err.message()));
  }

  info.name = info_text(out.name, "name", label);
  info.version = info_text(out.version, "version", label);
  info.description = info_text(out.description, "description", label);
  info.config_schema = info_text(out.config_schema, "config_schema", label);
  info.kind = out.kind;
  info.abi_major = out.abi_major;
  info.abi_minor = out.abi_minor;
  info.flags = out.flags;
  info.library = file;
  if (!valid_plugin_name(info.name)) {
    throw PluginLoadError(PluginErrorKind::InvalidVtable,
                          label + ": invalid plugin info: name '" + info.name +
                              "' must be non-empty and match [a-z0-9_-]+");
  }
  if (out.abi_minor != HAMI_ABI_MINOR) {
    // HAMI-HOST-4: both directions load; only members both sides know are used.
    services.log(HAMI_LOG_INFO, "plugins",
                 label + ": plugin ABI " + plugin_abi + ", host ABI " + host_abi() +
                     "; using the members both know");
  }
  if ((info.flags & HAMI_FLAG_KEEP_LOADED) != 0) {
    library->keep_loaded();
  }
  vtable = out.vtable;
  return library;
}

// Members missing from a vtable the plugin must provide (HAMI-HOST-5).
const char* missing_required(const hami_device_vtable& v) {
  if (v.create == nullptr)
    return "create";
  if (v.destroy == nullptr)
    return "destroy";
  if (v.describe == nullptr)
    return "describe";
  if (v.mutate_container == nullptr)
    return "mutate_container";
  if (v.container_request == nullptr)
    return "container_request";
  if (v.decode_node == nullptr)
    return "decode_node";
  if (v.node_health == nullptr)
    return "node_health";
  if (v.fit == nullptr)
    return "fit";
  if (v.encode_allocation == nullptr)
    return "encode_allocation";
  if (v.decode_allocation == nullptr)
    return "decode_allocation";
  return nullptr;
}

const char* missing_required(const hami_admission_vtable& v) {
  if (v.create == nullptr)
    return "create";
  if (v.destroy == nullptr)
    return "destroy";
  if (v.review == nullptr)
    return "review";
  return nullptr;
}

const char* missing_required(const hami_scheduling_vtable& v) {
  if (v.create == nullptr)
    return "create";
  if (v.destroy == nullptr)
    return "destroy";
  if (v.describe == nullptr)
    return "describe";
  return nullptr;
}

// The plugin's vtable copied into this host's layout: members the plugin
// does not have (an older minor) read as NULL, members this host does not
// know (a newer minor) are left behind.
template <class Vtable>
Vtable copy_vtable(const void* raw, const std::string& label) {
  if (raw == nullptr) {
    throw PluginLoadError(PluginErrorKind::InvalidVtable,
                          label + ": negotiation returned no vtable");
  }
  uint32_t size = 0;
  std::memcpy(&size, raw, sizeof size);
  if (size < v1_0_size<Vtable>) {
    throw PluginLoadError(PluginErrorKind::InvalidVtable,
                          label + ": vtable struct_size " + std::to_string(size) +
                              " is smaller than the ABI 1.0 " + struct_abi<Vtable>::name + " (" +
                              std::to_string(v1_0_size<Vtable>) + " bytes)");
  }
  Vtable copy{};
  std::memcpy(static_cast<void*>(&copy), raw, std::min<size_t>(size, sizeof copy));
  if (const char* missing = missing_required(copy)) {
    throw PluginLoadError(PluginErrorKind::InvalidVtable,
                          label + ": vtable lacks required function '" + missing + "'");
  }
  return copy;
}

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& w : words) {
    text.append(text.empty() ? "" : ",").append(w);
  }
  return text;
}

void warn_if_serialised(const PluginInfo& info, const std::string& label,
                        const HostServices& services) {
  if ((info.flags & HAMI_FLAG_CONCURRENT_SAFE) == 0) {
    services.log(HAMI_LOG_WARN, "plugins",
                 label +
                     ": policy plugin is not marked HAMI_FLAG_CONCURRENT_SAFE "
                     "(HAMI-PLUGIN-8); its calls are serialised");
  }
}

}  // namespace

PluginLoader::PluginLoader(LoaderOptions options, const HostServices& services)
    : options_(std::move(options)), services_(&services) {}

const PluginLoader::Negotiated& PluginLoader::negotiate(const PluginSpec& spec, uint32_t slot_kind,
                                                        std::string& label) {
  if (spec.kind != 0 && spec.kind != slot_kind) {
    throw std::invalid_argument("plugin '" + spec.name + "' is configured as a " +
                                kind_name(spec.kind) + " plugin but loaded into the " +
                                kind_name(slot_kind) + " slot");
  }
  const fs::path file = resolve_plugin_file(options_, spec);
  check_plugin_file_security(options_, spec, file, *services_);
  label = "plugin '" + spec.name + "' (" + file.string() + ")";

  auto it = libraries_.find(file);
  if (it == libraries_.end()) {
    Negotiated negotiated;
    negotiated.library =
        open_library(file, spec, label, *services_, negotiated.info, negotiated.vtable);
    it = libraries_.emplace(file, std::move(negotiated)).first;
  }
  const Negotiated& negotiated = it->second;
  if (negotiated.info.kind != slot_kind) {
    throw PluginLoadError(PluginErrorKind::WrongKind,
                          label + ": declares kind '" + kind_name(negotiated.info.kind) +
                              "' but is configured as a " + kind_name(slot_kind) + " plugin");
  }
  return negotiated;
}

template <class Handle, class Vtable>
Handle PluginLoader::load(const PluginSpec& spec, uint32_t slot_kind) {
  std::string label;
  const Negotiated& negotiated = negotiate(spec, slot_kind, label);
  const Vtable vtable = copy_vtable<Vtable>(negotiated.vtable, label);
  const std::string config =
      validate_plugin_config(label, negotiated.info.config_schema, spec.config_json);

  const hami_host_info host = negotiated.library->host_info(spec.name);
  hami_instance* raw = nullptr;
  ErrorBuffer err;
  hami_status status = HAMI_OK;
  try {
    status = vtable.create(&host, hami_str{config.data(), config.size()}, &raw, err.view());
  } catch (const std::exception& e) {
    throw PluginLoadError(PluginErrorKind::PluginThrew,
                          label + ": create threw an exception across the ABI: " + e.what());
  } catch (...) {
    throw PluginLoadError(PluginErrorKind::PluginThrew,
                          label + ": create threw an unknown exception across the ABI");
  }
  if (status != HAMI_OK) {
    // *out is ignored on failure (plugin.h): nothing to destroy.
    throw PluginLoadError(
        PluginErrorKind::CreateFailed,
        with_message(label + ": create failed with " + status_text(status), err.message()));
  }
  if (raw == nullptr) {
    throw PluginLoadError(PluginErrorKind::CreateFailed,
                          label + ": create returned OK but no instance");
  }
  PluginInstance instance(negotiated.library, spec.name, negotiated.info, vtable.destroy, raw);
  try {
    Handle handle(std::move(instance), vtable);
    services_->log(HAMI_LOG_INFO, "plugins",
                   label + ": loaded " + negotiated.info.name + " " + negotiated.info.version +
                       " (" + kind_name(slot_kind) + ", ABI " +
                       abi_version_text(negotiated.info.abi_major, negotiated.info.abi_minor) +
                       ")");
    return handle;
  } catch (const PluginCallError& e) {
    throw PluginLoadError(PluginErrorKind::CreateFailed, label + ": " + e.what());
  }
}

DevicePluginHandle PluginLoader::load_device(const PluginSpec& spec) {
  return load<DevicePluginHandle, hami_device_vtable>(spec, HAMI_KIND_DEVICE);
}

AdmissionPluginHandle PluginLoader::load_admission(const PluginSpec& spec) {
  AdmissionPluginHandle handle =
      load<AdmissionPluginHandle, hami_admission_vtable>(spec, HAMI_KIND_ADMISSION);
  warn_if_serialised(handle.info(), "plugin '" + spec.name + "'", *services_);
  return handle;
}

SchedulingPluginHandle PluginLoader::load_scheduling(const PluginSpec& spec) {
  SchedulingPluginHandle handle =
      load<SchedulingPluginHandle, hami_scheduling_vtable>(spec, HAMI_KIND_SCHEDULING);
  const std::string label = "plugin '" + spec.name + "' (" + handle.info().library.string() + ")";
  const PolicyNames& names = handle.policies();
  if (!names.node_policies.empty() && !handle.has_score_node()) {
    throw PluginLoadError(PluginErrorKind::InvalidVtable,
                          label + ": declares node policies '" + join(names.node_policies) +
                              "' but its vtable lacks 'score_node'");
  }
  if (!names.device_policies.empty() && !handle.has_order_devices()) {
    throw PluginLoadError(PluginErrorKind::InvalidVtable,
                          label + ": declares device policies '" + join(names.device_policies) +
                              "' but its vtable lacks 'order_devices'");
  }
  warn_if_serialised(handle.info(), label, *services_);
  return handle;
}

DevicePluginHandle load_device_plugin(const LoaderOptions& options, const PluginSpec& spec,
                                      const HostServices& services) {
  return PluginLoader(options, services).load_device(spec);
}

AdmissionPluginHandle load_admission_plugin(const LoaderOptions& options, const PluginSpec& spec,
                                            const HostServices& services) {
  return PluginLoader(options, services).load_admission(spec);
}

SchedulingPluginHandle load_scheduling_plugin(const LoaderOptions& options, const PluginSpec& spec,
                                              const HostServices& services) {
  return PluginLoader(options, services).load_scheduling(spec);
}

}  // namespace hami::host
