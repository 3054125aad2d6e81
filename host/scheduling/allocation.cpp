#include "scheduling/allocation.hpp"

#include "k8s/label_value.hpp"
#include "plugins/plugin_errors.hpp"

namespace hami::scheduling {

std::vector<VendorAllocation> allocations_from_fit(
    std::span<const host::DevicePluginHandle> plugins, const NodeFit& fit,
    const PodRequests& requests) {
  std::vector<VendorAllocation> out;
  for (uint32_t v = 0; v < requests.vendor_used.size(); ++v) {
    if (!requests.vendor_used[v])
      continue;
    VendorAllocation alloc;
    alloc.vendor = v;
    alloc.holds = v < plugins.size() && plugins[v].reads_pods();
    alloc.containers.resize(fit.containers.size());
    for (size_t c = 0; c < fit.containers.size(); ++c) {
      for (const Placement& p : fit.containers[c]) {
        if (p.vendor != v)
          continue;
        alloc.containers[c].push_back({p.id, p.type, p.memory_mib, p.cores, p.index, p.data});
      }
    }
    out.push_back(std::move(alloc));
  }
  return out;
}

std::vector<cluster::MetadataWrite> allocation_annotations(
    std::span<const host::DevicePluginHandle> plugins,
    const std::vector<VendorAllocation>& allocations, const hami_pod_view& pod,
    std::string_view node, int64_t now) {
  std::vector<cluster::MetadataWrite> out;
  for (const VendorAllocation& alloc : allocations) {
    const host::DevicePluginHandle& plugin = plugins[alloc.vendor];
    std::vector<std::vector<hami_alloc_device>> devices(alloc.containers.size());
    std::vector<hami_container_alloc> containers(alloc.containers.size());
    for (size_t c = 0; c < alloc.containers.size(); ++c) {
      for (const host::AllocDevice& d : alloc.containers[c]) {
        hami_alloc_device a{};
        a.struct_size = sizeof(hami_alloc_device);
        a.id = {d.id.data(), d.id.size()};
        a.type = {d.type.data(), d.type.size()};
        a.memory_mib = d.memory_mib;
        a.cores = d.cores;
        devices[c].push_back(a);
      }
      containers[c] = {devices[c].data(), devices[c].size()};
    }
    const std::string value = plugin.encode_allocation(containers);
    const host::DeviceDescription& desc = plugin.description();
    if (!desc.to_allocate_annotation.empty()) {
      out.push_back({desc.to_allocate_annotation, value});
    }
    if (!desc.allocated_annotation.empty())
      out.push_back({desc.allocated_annotation, value});
    for (host::AnnotationWrite& w : plugin.annotate_allocation(pod, node, alloc.containers, now))
      out.push_back({std::move(w.key), std::move(w.value)});
  }
  return out;
}

void add_assigned_node(cluster::PodMetadataPatch& patch, std::string_view node,
                       std::string_view time) {
  patch.annotations.push_back({std::string(kAssignedNodeAnnotation), std::string(node)});
  patch.annotations.push_back({std::string(kAssignedTimeAnnotation), std::string(time)});
  if (k8s::is_label_value(node))
    patch.labels.push_back({std::string(kAssignedNodeAnnotation), std::string(node)});
}

cluster::PodMetadataPatch allocation_removal(std::span<const host::DevicePluginHandle> plugins) {
  cluster::PodMetadataPatch patch;
  for (const host::DevicePluginHandle& plugin : plugins) {
    const host::DeviceDescription& desc = plugin.description();
    if (!desc.to_allocate_annotation.empty()) {
      patch.annotations.push_back({desc.to_allocate_annotation, std::nullopt});
    }
    if (!desc.allocated_annotation.empty()) {
      patch.annotations.push_back({desc.allocated_annotation, std::nullopt});
    }
    for (const std::string& key : desc.allocation_annotations)
      patch.annotations.push_back({key, std::nullopt});
  }
  patch.annotations.push_back({std::string(kAssignedNodeAnnotation), std::nullopt});
  patch.labels.push_back({std::string(kAssignedNodeAnnotation), std::nullopt});
  return patch;
}

std::optional<std::vector<VendorAllocation>> allocations_from_pod(
    std::span<const host::DevicePluginHandle> plugins, const cluster::PodRecord& pod,
    std::string& error) {
  const auto node = pod.annotation(kAssignedNodeAnnotation);
  if (!node || node->empty())
    return std::nullopt;
  std::vector<VendorAllocation> out;
  for (uint32_t v = 0; v < plugins.size(); ++v) {
    if (plugins[v].reads_pods()) {
      if (!pod.model)
        continue;
      try {
        auto decoded = plugins[v].decode_pod_allocation(pod.model->view());
        if (decoded)
          out.push_back({v, std::move(*decoded), true});
      } catch (const host::PluginCallError& e) {
        error = e.what();
        return std::nullopt;
      }
      continue;
    }
    const host::DeviceDescription& desc = plugins[v].description();
    std::optional<std::string_view> value;
    if (!desc.allocated_annotation.empty())
      value = pod.annotation(desc.allocated_annotation);
    if (!value && !desc.to_allocate_annotation.empty()) {
      value = pod.annotation(desc.to_allocate_annotation);
    }
    if (!value)
      continue;
    try {
      out.push_back({v, plugins[v].decode_allocation(*value)});
    } catch (const host::PluginCallError& e) {
      error = e.what();
      return std::nullopt;
    }
  }
  if (out.empty())
    return std::nullopt;
  return out;
}

}  // namespace hami::scheduling
