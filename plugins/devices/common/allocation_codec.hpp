// The pod-device string of HAMi's allocation annotations (§4.2), e.g.
// `hami.io/vgpu-devices-allocated`:
//
//   pod       := { container ";" }      one segment per container, init first
//   container := { device ":" }         empty for a container without devices
//   device    := UUID "," TYPE "," MEM_MiB "," CORES
//
// Encoding writes exactly one segment per container, empty ones included, so
// segment i always belongs to container i (HAMi bug 7.7#1 dropped empty
// segments on nodes that register model names; this encoder never looks at
// device types to decide what to write).
//
// Decoding reads what the grammar says: every ";" closes a segment, and text
// after the last ";" is one more segment only when it is not empty (a writer
// that forgot the final ";"). HAMi's decoder reports an extra empty slot for
// the trailing ";"; this one does not, so N containers decode to N segments.
// Inside a segment, device entries without a comma are skipped and entries
// with fewer than four fields are an error, as in HAMi; fields after the
// fourth are ignored; MEM and CORES must be integers.
#ifndef HAMI_DEVICES_COMMON_ALLOCATION_CODEC_HPP
#define HAMI_DEVICES_COMMON_ALLOCATION_CODEC_HPP

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "hami/device.h"

namespace hami::devices {

struct AllocatedDevice {
  std::string_view id;
  std::string_view type;
  std::int64_t memory_mib = 0;
  std::int32_t cores = 0;
};

// Appends the annotation value to `out`. Throws InvalidInput when an id or a
// type contains a separator (',', ':', ';') or the container list is
// inconsistent (devices_len > 0 with a null array).
void encode_allocation(std::span<const hami_container_alloc> containers, std::string& out);

// Calls on_container() at the start of each segment, then on_device(dev) for
// each of its devices. Throws InvalidInput when malformed.
template <class OnContainer, class OnDevice>
void decode_allocation(std::string_view text, OnContainer&& on_container, OnDevice&& on_device);

// Parses one device entry (already known to contain a comma).
AllocatedDevice parse_allocated_device(std::string_view entry, std::size_t segment);

template <class OnContainer, class OnDevice>
void decode_allocation(std::string_view text, OnContainer&& on_container, OnDevice&& on_device) {
  std::size_t segment = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(';', start);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view seg = text.substr(start, end - start);
    on_container();
    std::size_t dstart = 0;
    while (dstart <= seg.size()) {
      std::size_t dend = seg.find(':', dstart);
      if (dend == std::string_view::npos)
        dend = seg.size();
      const std::string_view entry = seg.substr(dstart, dend - dstart);
      if (entry.find(',') != std::string_view::npos) {
        on_device(parse_allocated_device(entry, segment));
      }
      dstart = dend + 1;
    }
    ++segment;
    start = end + 1;
  }
}

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_ALLOCATION_CODEC_HPP
