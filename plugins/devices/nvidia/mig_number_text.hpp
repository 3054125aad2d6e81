// Decimal numbers in nvidia.so's own compact texts (MIG attributes and pick
// data): canonical form only — digits, no leading zeros, an optional "-"
// where signed (never "-0") — so decoding and re-encoding give the same
// bytes.
#ifndef HAMI_DEVICES_NVIDIA_MIG_NUMBER_TEXT_HPP
#define HAMI_DEVICES_NVIDIA_MIG_NUMBER_TEXT_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hami::devices::nvidia {

// The whole of `field` as a number; nullopt when not canonical or out of
// range.
std::optional<std::uint32_t> parse_u32(std::string_view field);
std::optional<std::int32_t> parse_i32(std::string_view field);

// Reads the number in front of the first `stop` of `text` and drops both
// from `text`; nullopt (text unchanged) when it is not a number or `stop` is
// missing.
std::optional<std::uint32_t> take_u32(std::string_view& text, char stop);
std::optional<std::int32_t> take_i32(std::string_view& text, char stop);

inline void append_number(std::string& out, std::int64_t v) {
  out += std::to_string(v);
}

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_MIG_NUMBER_TEXT_HPP
