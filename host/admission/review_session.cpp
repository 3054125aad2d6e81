#include "admission/review_session.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "admission/quota.hpp"
#include "hami/plugin.hpp"
#include "plugins/plugin_errors.hpp"

namespace hami::admission {

namespace {

void write_error(hami_errbuf err, std::string_view message) noexcept {
  if (err.cap == 0 || err.buf == nullptr)
    return;
  const size_t n = std::min(message.size(), err.cap - 1);
  if (n != 0)
    std::memcpy(err.buf, message.data(), n);
  err.buf[n] = '\0';
}

// A PluginCallError reads "<plugin>.<function>: <message>"; a pod is denied
// with the device plugin's own words, as HAMi does.
std::string_view plugin_message(const host::PluginCallError& error, std::string_view plugin,
                                std::string_view function) {
  std::string_view text = error.what();
  const std::string prefix = std::string(plugin) + "." + std::string(function) + ": ";
  if (text.substr(0, prefix.size()) == prefix)
    text.remove_prefix(prefix.size());
  return text;
}

// Runs a callback body so that nothing is thrown across the C ABI.
template <class F>
hami_status barrier(hami_errbuf err, F&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    write_error(err, e.what());
  } catch (...) {
    write_error(err, "unknown exception in the admission host");
  }
  return HAMI_INTERNAL;
}

}  // namespace

ReviewSession::ReviewSession(k8s::PodModel& pod, PodPatcher& patcher,
                             std::span<const host::DevicePluginHandle> devices,
                             const AdmissionClusterView* cluster)
    : pod_(pod), patcher_(patcher), devices_(devices), cluster_(cluster) {
  table_.struct_size = sizeof(hami_admission_host);
  table_.ctx = this;
  table_.apply_device_defaults = &ReviewSession::apply_device_defaults_cb;
  table_.check_quota = &ReviewSession::check_quota_cb;
  table_.namespace_label = &ReviewSession::namespace_label_cb;
}

hami_status ReviewSession::apply_device_defaults_cb(void* ctx, uint32_t* uses_managed,
                                                    hami_errbuf err) noexcept {
  return barrier(err, [&] {
    if (ctx == nullptr || uses_managed == nullptr) {
      write_error(err, "apply_device_defaults: NULL argument");
      return HAMI_INVALID_ARGUMENT;
    }
    return static_cast<ReviewSession*>(ctx)->apply_device_defaults(*uses_managed, err);
  });
}

hami_status ReviewSession::check_quota_cb(void* ctx, hami_errbuf err) noexcept {
  return barrier(err, [&] {
    if (ctx == nullptr) {
      write_error(err, "check_quota: NULL context");
      return HAMI_INVALID_ARGUMENT;
    }
    return static_cast<ReviewSession*>(ctx)->check_quota(err);
  });
}

hami_status ReviewSession::namespace_label_cb(void* ctx, hami_str key, hami_sink value) noexcept {
  // The ABI gives this call no error buffer; failures are only a status.
  return barrier(hami_errbuf{nullptr, 0}, [&] {
    if (ctx == nullptr || (key.ptr == nullptr && key.len != 0) || value.append == nullptr) {
      return HAMI_INVALID_ARGUMENT;
    }
    return static_cast<ReviewSession*>(ctx)->namespace_label(to_sv(key), value);
  });
}

hami_status ReviewSession::apply_device_defaults(uint32_t& uses_managed, hami_errbuf err) {
  uses_managed = 0;
  if (defaults_applied_) {
    write_error(err, "apply_device_defaults may be called once per review");
    return HAMI_FAILED_PRECONDITION;
  }
  defaults_applied_ = true;
  for (size_t c = 0; c < pod_.container_count(); ++c) {
    for (const host::DevicePluginHandle& device : devices_) {
      host::ContainerMutation mutation;
      try {
        // Re-read the view each time: earlier mutations may have moved it.
        mutation = device.mutate_container(pod_.view(), c);
      } catch (const host::PluginCallError& e) {
        if (e.status() == HAMI_INVALID_ARGUMENT) {
          write_error(err, plugin_message(e, device.name(), "mutate_container"));
          return HAMI_INVALID_ARGUMENT;
        }
        write_error(err, e.what());
        return HAMI_INTERNAL;
      }
      try {
        for (const auto& [resource, quantity] : mutation.limits) {
          patcher_.set_limit(c, resource, quantity);
        }
        for (const auto& [resource, quantity] : mutation.requests)
          patcher_.set_request(c, resource, quantity);
        for (const auto& [name, value] : mutation.env)
          patcher_.set_env(c, name, value);
        for (const auto& [key, value] : mutation.pod_annotations)
          patcher_.set_annotation(key, value);
        if (mutation.runtime_class)
          patcher_.set_runtime_class_if_absent(*mutation.runtime_class);
      } catch (const std::invalid_argument& e) {
        write_error(err, device.name() + ".mutate_container: " + e.what());
        return HAMI_INTERNAL;
      }
      uses_managed_ = uses_managed_ || mutation.uses_device;
    }
  }
  if (const hami_status s = check_requests(err); s != HAMI_OK)
    return s;
  uses_managed = uses_managed_ ? 1U : 0U;
  return HAMI_OK;
}

hami_status ReviewSession::check_requests(hami_errbuf err) const {
  for (size_t c = 0; c < pod_.container_count(); ++c) {
    for (const host::DevicePluginHandle& device : devices_) {
      try {
        host::RequestResult result = device.container_request(pod_.view(), c);
        if (!result.warning.empty()) {
          write_error(err, result.warning);
          return HAMI_INVALID_ARGUMENT;
        }
      } catch (const host::PluginCallError& e) {
        write_error(err, e.what());
        return HAMI_INTERNAL;
      }
    }
  }
  return HAMI_OK;
}

hami_status ReviewSession::check_quota(hami_errbuf err) {
  if (cluster_ == nullptr) {
    write_error(err, "namespace quotas are not available");
    return HAMI_UNAVAILABLE;
  }
  const std::string_view ns = to_sv(pod_.view().namespace_);
  const std::optional<NamespaceQuota> quota = cluster_->quota(ns);
  if (!quota)
    return HAMI_OK;
  std::vector<hami_device_request> requests(pod_.container_count());
  for (const host::DevicePluginHandle& device : devices_) {
    const host::DeviceDescription& d = device.description();
    if (d.memory_resource.empty() && d.cores_resource.empty())
      continue;
    for (size_t c = 0; c < requests.size(); ++c) {
      requests[c] = device.container_request(pod_.view(), c).request;
    }
    const QuotaDemand demand = pod_demand(requests, pod_.view().init_count);
    if (demand.empty())
      continue;
    const QuotaResources resources{d.memory_resource, d.cores_resource, d.memory_factor};
    if (const auto violation = quota_violation(*quota, resources, demand)) {
      write_error(err,
                  "exceeding resource quota in namespace " + std::string(ns) + ": " + *violation);
      return HAMI_RESOURCE_EXHAUSTED;
    }
  }
  return HAMI_OK;
}

hami_status ReviewSession::namespace_label(std::string_view key, hami_sink value) {
  if (cluster_ == nullptr)
    return HAMI_UNAVAILABLE;
  const std::optional<std::string> label =
      cluster_->namespace_label(to_sv(pod_.view().namespace_), key);
  if (!label)
    return HAMI_NOT_FOUND;
  if (!label->empty())
    value.append(value.ctx, label->data(), label->size());
  return HAMI_OK;
}

}  // namespace hami::admission
