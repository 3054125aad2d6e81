// The die-mode facts of a Vastai device: the `DeviceStrategy` and `AIC`
// members of its registered `custominfo` (HAMi's DeviceInfo.CustomInfo, a Go
// map[string]any), kept in hami_device.attributes between decode_node and
// fit / score_placement. HAMi reads them by Go type assertion, so what
// matters per member is: absent, a string (and which), or any other JSON
// value (number, bool, null, object, array).
//
// Attributes text (the host copies it without reading it):
//
//   attributes := "" | strategy aic
//   strategy   := member                 DeviceStrategy
//   aic        := member                 AIC
//   member     := "-"                    absent
//               | "*"                    present, not a string
//               | LEN ":" TEXT           a string: LEN its byte count in
//                                        decimal (no leading zero), then
//                                        the bytes verbatim
//
// "" means both members absent (a device without custominfo, or whose
// custominfo names neither); that case is never written as "--", so every
// value has exactly one text. Example, die 1 of card "0":
//   3:die1:0
#ifndef HAMI_DEVICES_VASTAI_DIE_HPP
#define HAMI_DEVICES_VASTAI_DIE_HPP

#include <optional>
#include <string>
#include <string_view>

#include "node_register.hpp"

namespace hami::devices::vastai {

// One custominfo member as die mode reads it.
struct CustomMember {
  enum class Kind { Absent, String, Other };
  Kind kind = Kind::Absent;
  std::string_view text;  // Kind::String
  friend bool operator==(const CustomMember&, const CustomMember&) = default;
};

struct DieInfo {
  CustomMember strategy;  // DeviceStrategy
  CustomMember aic;       // AIC

  // DeviceStrategy is the string "die" (HAMi isDieMode).
  bool is_die() const noexcept;
  // DeviceStrategy is a string other than "die": HAMi's ScoreNode scores 0.
  bool other_strategy() const noexcept;
  // The card (AIC) when it is a string (HAMi aicID); nullopt otherwise.
  std::optional<std::string_view> card() const noexcept;
  // Whether custominfo has an AIC member at all, of any type.
  bool has_aic() const noexcept { return aic.kind != CustomMember::Kind::Absent; }

  friend bool operator==(const DieInfo&, const DieInfo&) = default;
};

// The die facts of a registered device. When a key repeats, the last
// member wins, as Go's decoder fills a map. Views point into `device`.
DieInfo die_info(const RegisteredDevice& device);

// The attributes text of `info` (grammar above).
std::string encode_die_attributes(const DieInfo& info);

// The facts of an attributes text; views point into `text`. Throws
// InvalidInput when `text` is not exactly what encode_die_attributes writes.
DieInfo decode_die_attributes(std::string_view text);

}  // namespace hami::devices::vastai

#endif  // HAMI_DEVICES_VASTAI_DIE_HPP
