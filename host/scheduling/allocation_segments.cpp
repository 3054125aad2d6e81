#include "scheduling/allocation_segments.hpp"

#include <stdexcept>

#include "hami/device.h"

namespace hami::scheduling {

namespace {

// Start and length of segment `index` in `raw`.
std::optional<std::pair<size_t, size_t>> locate(std::string_view raw, std::string_view terminator,
                                                size_t index) {
  if (terminator.empty())
    return std::nullopt;
  size_t start = 0;
  for (size_t i = 0;; ++i) {
    const size_t end = raw.find(terminator, start);
    if (end == std::string_view::npos)
      return std::nullopt;
    if (i == index)
      return std::pair{start, end - start};
    start = end + terminator.size();
  }
}

}  // namespace

std::string segment_terminator(const host::DevicePluginHandle& plugin) {
  const hami_container_alloc empty{nullptr, 0};
  return plugin.encode_allocation({&empty, 1});
}

std::string encode_segment(const host::DevicePluginHandle& plugin,
                           const std::vector<host::AllocDevice>& devices,
                           std::string_view terminator) {
  std::vector<hami_alloc_device> abi;
  abi.reserve(devices.size());
  for (const host::AllocDevice& d : devices) {
    hami_alloc_device a{};
    a.struct_size = sizeof(hami_alloc_device);
    a.id = {d.id.data(), d.id.size()};
    a.type = {d.type.data(), d.type.size()};
    a.memory_mib = d.memory_mib;
    a.cores = d.cores;
    abi.push_back(a);
  }
  const hami_container_alloc container{abi.data(), abi.size()};
  std::string text = plugin.encode_allocation({&container, 1});
  if (text.size() < terminator.size() ||
      std::string_view(text).substr(text.size() - terminator.size()) != terminator) {
    throw std::runtime_error("the " + plugin.name() +
                             " encoding of one container does not end with its segment terminator");
  }
  text.resize(text.size() - terminator.size());
  return text;
}

std::optional<std::string_view> segment_at(std::string_view raw, std::string_view terminator,
                                           size_t index) {
  const auto at = locate(raw, terminator, index);
  if (!at)
    return std::nullopt;
  return raw.substr(at->first, at->second);
}

std::optional<std::string> replace_segment(std::string_view raw, std::string_view terminator,
                                           size_t index, std::string_view text) {
  const auto at = locate(raw, terminator, index);
  if (!at)
    return std::nullopt;
  std::string out;
  out.reserve(raw.size() - at->second + text.size());
  out.append(raw.substr(0, at->first));
  out.append(text);
  out.append(raw.substr(at->first + at->second));
  return out;
}

}  // namespace hami::scheduling
