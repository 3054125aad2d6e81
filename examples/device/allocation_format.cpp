#include "allocation_format.hpp"

#include <charconv>
#include <cstdint>
#include <vector>

#include "hami/device.hpp"

namespace example {
namespace {

void require_plain(std::string_view text, const char* what) {
  if (text.find_first_of(",:;") != std::string_view::npos) {
    throw hami::Error(HAMI_INVALID_ARGUMENT,
                      std::string(what) + " '" + std::string(text) + "' contains , : or ;");
  }
}

template <class Int>
Int number(std::string_view field) {
  Int value{};
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc{} || end != field.data() + field.size() || value < 0) {
    throw hami::Error(HAMI_INVALID_ARGUMENT,
                      "allocation field '" + std::string(field) + "' is not a number");
  }
  return value;
}

}  // namespace

std::string encode_allocation(std::span<const hami_container_alloc> containers) {
  std::string out;
  for (const hami_container_alloc& c : containers) {
    for (std::size_t i = 0; i < c.devices_len; ++i) {
      const hami_alloc_device& d = c.devices[i];
      const std::string_view id(d.id.ptr, d.id.len);
      const std::string_view type(d.type.ptr, d.type.len);
      require_plain(id, "device id");
      require_plain(type, "device type");
      out.append(id).append(",").append(type).append(",");
      out.append(std::to_string(d.memory_mib)).append(",").append(std::to_string(d.cores));
      out.append(":");
    }
    out.append(";");
  }
  return out;
}

void decode_allocation(std::string_view value, const hami_allocation_sink& out) {
  // Parse everything first: the sink sees a whole allocation or nothing.
  struct Device {
    std::string_view id, type;
    std::int64_t memory = 0;
    std::int32_t cores = 0;
  };
  std::vector<std::vector<Device>> containers;
  std::size_t start = 0;
  while (start < value.size()) {
    const std::size_t end = value.find(';', start);
    if (end == std::string_view::npos) {
      throw hami::Error(HAMI_INVALID_ARGUMENT, "allocation does not end with ';'");
    }
    std::vector<Device>& devices = containers.emplace_back();
    std::string_view segment = value.substr(start, end - start);
    while (!segment.empty()) {
      const std::size_t colon = segment.find(':');
      if (colon == std::string_view::npos) {
        throw hami::Error(HAMI_INVALID_ARGUMENT, "allocation device does not end with ':'");
      }
      const std::string_view text = segment.substr(0, colon);
      segment.remove_prefix(colon + 1);
      std::string_view f[4];
      std::size_t n = 0, from = 0;
      for (; n < 4; ++n) {
        const std::size_t comma = text.find(',', from);
        f[n] = text.substr(from, comma == std::string_view::npos ? comma : comma - from);
        if (comma == std::string_view::npos) {
          break;
        }
        from = comma + 1;
      }
      if (n != 3 || f[0].empty()) {
        throw hami::Error(HAMI_INVALID_ARGUMENT,
                          "allocation device '" + std::string(text) + "' is not id,type,mem,cores");
      }
      devices.push_back(Device{f[0], f[1], number<std::int64_t>(f[2]), number<std::int32_t>(f[3])});
    }
    start = end + 1;
  }
  for (const auto& devices : containers) {
    hami::open_container(out);
    for (const Device& d : devices) {
      hami::emit_alloc_device(out, hami_alloc_device{sizeof(hami_alloc_device), hami::to_str(d.id),
                                                     hami::to_str(d.type), d.memory, d.cores});
    }
  }
}

}  // namespace example
