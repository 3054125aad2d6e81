#include "scheduling/admission_view.hpp"

namespace hami::scheduling {

std::optional<admission::NamespaceQuota> LedgerAdmissionView::quota(std::string_view ns) const {
  const auto snapshot = ledger_.read();
  const auto* limits = snapshot->namespace_limits(ns);
  if (limits == nullptr)
    return std::nullopt;
  admission::NamespaceQuota out;
  const auto* used = snapshot->namespace_used(ns);
  for (size_t v = 0; v < plugins_.size() && v < limits->size(); ++v) {
    const host::DeviceDescription& d = plugins_[v].description();
    const QuotaLimits& l = (*limits)[v];
    if (l.memory_mib && !d.memory_resource.empty())
      out.hard[d.memory_resource] = *l.memory_mib;
    if (l.cores && !d.cores_resource.empty())
      out.hard[d.cores_resource] = *l.cores;
    if (used != nullptr && v < used->size()) {
      if (!d.memory_resource.empty())
        out.used[d.memory_resource] = (*used)[v].memory_mib;
      if (!d.cores_resource.empty())
        out.used[d.cores_resource] = (*used)[v].cores;
    }
  }
  if (out.hard.empty())
    return std::nullopt;
  return out;
}

std::optional<std::string> LedgerAdmissionView::namespace_label(std::string_view ns,
                                                                std::string_view key) const {
  for (const cluster::NamespaceRecord& record : cluster_.namespaces()) {
    if (record.name != ns)
      continue;
    for (const auto& [k, v] : record.labels) {
      if (k == key)
        return v;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace hami::scheduling
