// Decoding of the node registration annotation that HAMi's node-side device
// plugins write (`hami.io/node-nvidia-register`, `hami.io/node-amd-register`).
//
// Wire form (HAMi §3.1): a JSON array of device objects. Go writes it with
// `omitempty`, so zero values (index 0, numa 0, health false, empty strings)
// are absent and read as zero; Go reads keys case-insensitively and ignores
// unknown keys, and so does this decoder. Types are checked as strictly as
// Go's encoding/json does ("count": "10" or 10.5 is an error); `null` for a
// field keeps its zero value.
//
// NVIDIA nodes that still run a ≤ v2.7 device plugin write the legacy colon
// form `UUID,count,devmem,devcore,type,numa,health[,index,mode]:` repeated;
// `decode_register` reads it when the text is not JSON.
#ifndef HAMI_DEVICES_COMMON_NODE_REGISTER_HPP
#define HAMI_DEVICES_COMMON_NODE_REGISTER_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hami::devices {

// A MIG placement: GPU slices [start, start + size).
struct RegisteredMigPlacement {
  std::uint32_t start = 0;
  std::uint32_t size = 0;
};

// One entry of a device's `migProfiles` (HAMi's device.MigProfile):
// {"name","memoryMB","core","sliceCount","placements":[{"start","size"}]}.
// Other keys (instanceCount, multiprocessorCount) are ignored, as in Go.
struct RegisteredMigProfile {
  std::string_view name;
  std::int32_t memory_mb = 0;
  std::int32_t core = 0;
  std::uint32_t slice_count = 0;
  std::vector<RegisteredMigPlacement> placements;
};

// One top-level member of a device's `custominfo` object (HAMi's
// DeviceInfo.CustomInfo, a Go map[string]any): vendor data such as Ascend's
// NetworkID or Vastai's DeviceStrategy and AIC. Keys are exact (a Go map
// key, not a struct tag). Numbers are float64, as Go decodes them into
// `any`; nested objects and arrays are kept as Other, without content.
struct RegisteredCustomValue {
  enum class Kind { String, Number, Bool, Null, Other };
  std::string_view key;
  Kind kind = Kind::Null;
  std::string_view text;  // Kind::String
  double number = 0;      // Kind::Number
  bool boolean = false;   // Kind::Bool
};

// One registered device. Strings view into the owning RegisterDecoding.
struct RegisteredDevice {
  std::string_view id;
  std::string_view type;
  std::string_view mode;
  std::uint32_t index = 0;
  std::int32_t count = 0;
  std::int32_t devmem = 0;   // MiB
  std::int32_t devcore = 0;  // NVIDIA: percent × scaling; AMD: CU count
  std::int32_t numa = 0;
  bool health = false;
  // `migProfiles`, typed as strictly as Go decodes them; empty when absent
  // or null. Decoded for every device; only MIG-mode devices use them.
  std::vector<RegisteredMigProfile> mig_profiles;
  // `custominfo`, in document order; empty when absent or null. A value
  // other than an object or null is an error, as in Go.
  std::vector<RegisteredCustomValue> custom_info;
  // The custominfo member named `key`, or nullptr.
  const RegisteredCustomValue* custom(std::string_view key) const noexcept {
    for (const RegisteredCustomValue& v : custom_info) {
      if (v.key == key)
        return &v;
    }
    return nullptr;
  }
};

enum class RegisterForm { Json, Legacy };

// The decoded annotation. Owns a copy of the text the devices point into, so
// it is movable but its views stay valid only while it lives.
class RegisterDecoding {
 public:
  const std::vector<RegisteredDevice>& devices() const noexcept { return devices_; }

 private:
  friend RegisterDecoding decode_register(std::string_view text, RegisterForm allowed_legacy);
  friend RegisterDecoding decode_register_json(std::string_view text);
  friend RegisterDecoding decode_register_legacy(std::string_view text);
  friend RegisterDecoding decode_register_colon(std::string_view text);
  std::string buffer_;
  std::vector<RegisteredDevice> devices_;
};

// Strict JSON form. Throws InvalidInput naming the element and key at fault.
RegisterDecoding decode_register_json(std::string_view text);

// Legacy colon form. Throws InvalidInput; numbers must be well-formed.
RegisterDecoding decode_register_legacy(std::string_view text);

// The colon form exactly as HAMi v2.10's DecodeNodeDevices reads it (the
// registration of Hygon DCU and Iluvatar nodes), with its error texts:
//   "node annotation missing device separator" (no ':' at all),
//   "malformed node annotation segment: \"<seg>\"" (a segment without ','),
//   "unexpected field count <n> in node annotation" (not 7 or 9 fields),
//   "invalid count field: strconv.ParseInt: parsing \"x\": invalid syntax"
//   (likewise memory, core, health, numa, index, in Go's check order), and
//   "index field must not be negative: <n>". Empty segments are skipped; no
//   device at all is not an error here (the vendor reports it). One
//   difference: NUMA and index must fit 32 bits (Go takes any int there).
RegisterDecoding decode_register_colon(std::string_view text);

// JSON when the text starts (after spaces) like a JSON value ('[', '{', '"',
// null, true, false); otherwise the legacy form when `allowed_legacy` is
// RegisterForm::Legacy, else a JSON error. Throws InvalidInput.
RegisterDecoding decode_register(std::string_view text, RegisterForm allowed_legacy);

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_NODE_REGISTER_HPP
