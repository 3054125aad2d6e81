// What ascend.so keeps in hami_device.attributes between decode_node and
// fit / score_placement: the NPU's `custominfo.NetworkID` (its HCCS ring).
//
//   attributes := "" | "NetworkID=" NUMBER
//
// "" means the registration carries no NetworkID (or one that is not a
// number: HAMi's grouping reads it as float64 only). NUMBER is the value in
// the shortest form that reads back to the same double (std::to_chars), e.g.
// "NetworkID=0", "NetworkID=1", "NetworkID=2.5".
#ifndef HAMI_DEVICES_ASCEND_ATTRIBUTES_HPP
#define HAMI_DEVICES_ASCEND_ATTRIBUTES_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hami::devices::ascend {

// The attributes text of a device whose NetworkID is `network_id`.
std::string encode_attributes(std::optional<double> network_id);

// The NetworkID in `attributes`; nullopt for "". Throws InvalidInput when
// the text is not what encode_attributes writes (a finite number).
std::optional<double> decode_network_id(std::string_view attributes);

// The group a NetworkID falls in: Go's int(float64) (truncation toward
// zero), saturated at the int64 range.
std::int64_t network_group(double network_id) noexcept;

}  // namespace hami::devices::ascend

#endif  // HAMI_DEVICES_ASCEND_ATTRIBUTES_HPP
