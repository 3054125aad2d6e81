// The MIG profiles of a device as nvidia.so keeps them in
// hami_device.attributes between decode_node and fit: HAMi's migProfiles
// (§3.1) in a compact text the host copies without reading.
//
//   attributes := [ profile { ";" profile } ]
//   profile    := MEMORY_MB "," CORE "," SLICES "," placements "," LEN ":" NAME
//   placements := [ START "+" SIZE { "/" START "+" SIZE } ]
//
// Numbers are decimal (MEMORY_MB and CORE may be negative, as Go's int32
// may); NAME is LEN bytes taken verbatim, so any name survives. Example, an
// A100's 1g.5gb and 2g.10gb profiles:
//   5120,14,1,0+1/1+1/2+1/3+1/4+1/5+1/6+1,6:1g.5gb;10240,28,2,0+2/2+2/4+2,7:2g.10gb
#ifndef HAMI_DEVICES_NVIDIA_MIG_ATTRIBUTES_HPP
#define HAMI_DEVICES_NVIDIA_MIG_ATTRIBUTES_HPP

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mig_types.hpp"
#include "node_register.hpp"

namespace hami::devices::nvidia {

// The attributes text of a registration's profiles ("" for none).
std::string encode_mig_attributes(std::span<const RegisteredMigProfile> profiles);

// Profiles whose names view into `text`. Throws InvalidInput when `text` is
// not what encode_mig_attributes writes.
std::vector<MigProfile> decode_mig_attributes(std::string_view text);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_MIG_ATTRIBUTES_HPP
