// The per-container segments of a raw allocation annotation value, found
// with the vendor's own framing rather than a grammar the host would know:
// the encoding of one container without devices is the terminator every
// segment ends with (HAMi's ";"), and the encoding of one container less
// that terminator is the container's segment text. The NUMA refit replaces
// one segment and keeps every other byte of the value as it is.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/device_plugin_handle.hpp"

namespace hami::scheduling {

// The vendor's segment terminator: its encoding of one empty container.
// Throws host::PluginCallError.
std::string segment_terminator(const host::DevicePluginHandle& plugin);

// The text of one container's devices in the vendor's encoding, without
// the terminator. Throws host::PluginCallError; std::runtime_error when the
// encoding does not end with `terminator`.
std::string encode_segment(const host::DevicePluginHandle& plugin,
                           const std::vector<host::AllocDevice>& devices,
                           std::string_view terminator);

// Segment `index` of `raw` (the bytes before its terminator); nullopt when
// `raw` has fewer terminated segments or `terminator` is empty.
std::optional<std::string_view> segment_at(std::string_view raw, std::string_view terminator,
                                           size_t index);

// `raw` with segment `index` replaced by `text`, every other byte kept;
// nullopt as for segment_at.
std::optional<std::string> replace_segment(std::string_view raw, std::string_view terminator,
                                           size_t index, std::string_view text);

}  // namespace hami::scheduling
