// The pod annotations that restrict which devices a container may get:
// `<vendor>/use-gputype` / `nouse-gputype` (comma list, case-insensitive
// substring of the device type) and `use-gpuuuid` / `nouse-gpuuuid` (comma
// list of exact UUIDs). HAMi v2.10 semantics (§8.6 TestCheckUUID/TestCheckType):
//   - a value that is empty or only whitespace is no constraint;
//   - members are trimmed and empty members dropped, so "A100," names A100
//     only; a use-list made only of commas therefore admits nothing;
//   - both lists apply, and the nouse list wins.
#ifndef HAMI_DEVICES_COMMON_SELECTORS_HPP
#define HAMI_DEVICES_COMMON_SELECTORS_HPP

#include <optional>
#include <string_view>

namespace hami::devices {

struct Selector {
  std::optional<std::string_view> use;
  std::optional<std::string_view> nouse;
};

// Device type allowed by a type selector.
bool type_allowed(const Selector& selector, std::string_view device_type) noexcept;

// Device UUID allowed by a UUID selector.
bool uuid_allowed(const Selector& selector, std::string_view device_id) noexcept;

// `nvidia.com/numa-bind`-style flag: Go strconv.ParseBool true values.
bool parse_bool_true(std::string_view text) noexcept;

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_SELECTORS_HPP
