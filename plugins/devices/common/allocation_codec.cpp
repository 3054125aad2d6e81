#include "allocation_codec.hpp"

#include <charconv>
#include <limits>

#include "errors.hpp"
#include "hami/plugin.hpp"
#include "text.hpp"

namespace hami::devices {
namespace {

void check_field(std::string_view value, const char* what, std::size_t container) {
  if (value.find_first_of(",:;") != std::string_view::npos) {
    throw InvalidInput(std::string("container ") + std::to_string(container) + ": device " + what +
                       " \"" + std::string(value) + "\" contains a separator (',', ':' or ';')");
  }
}

template <class Int>
bool parse_integer(std::string_view s, Int& out) {
  if (s.empty())
    return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

}  // namespace

void encode_allocation(std::span<const hami_container_alloc> containers, std::string& out) {
  for (std::size_t c = 0; c < containers.size(); ++c) {
    const hami_container_alloc& ctr = containers[c];
    if (ctr.devices_len > 0 && ctr.devices == nullptr) {
      throw InvalidInput("container " + std::to_string(c) + ": devices_len > 0 with no devices");
    }
    for (std::size_t d = 0; d < ctr.devices_len; ++d) {
      const hami_alloc_device& dev = ctr.devices[d];
      const std::string_view id = to_sv(dev.id);
      const std::string_view type = to_sv(dev.type);
      check_field(id, "id", c);
      check_field(type, "type", c);
      out.append(id);
      out += ',';
      out.append(type);
      out += ',';
      out += std::to_string(dev.memory_mib);
      out += ',';
      out += std::to_string(dev.cores);
      out += ':';
    }
    out += ';';
  }
}

AllocatedDevice parse_allocated_device(std::string_view entry, std::size_t segment) {
  std::string_view fields[4];
  std::size_t n = 0;
  for_each_piece(entry, ',', [&](std::string_view f) {
    if (n < 4)
      fields[n] = f;
    ++n;
    return n < 4;
  });
  const std::string where =
      "segment " + std::to_string(segment) + " device \"" + std::string(entry) + "\": ";
  if (n < 4)
    throw InvalidInput(where + "expected UUID,TYPE,MEM,CORES");
  AllocatedDevice d;
  d.id = fields[0];
  d.type = fields[1];
  if (!parse_integer(fields[2], d.memory_mib))
    throw InvalidInput(where + "memory is not an integer");
  if (!parse_integer(fields[3], d.cores))
    throw InvalidInput(where + "cores is not an int32");
  return d;
}

}  // namespace hami::devices
