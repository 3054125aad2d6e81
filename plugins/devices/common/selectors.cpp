#include "selectors.hpp"

#include "text.hpp"

namespace hami::devices {
namespace {

// nullopt: no constraint; else whether any non-empty trimmed member matches.
template <class Match>
std::optional<bool> any_member(std::optional<std::string_view> list, Match&& match) {
  if (!list || trim(*list).empty())
    return std::nullopt;
  bool found = false;
  for_each_piece(*list, ',', [&](std::string_view piece) {
    const std::string_view member = trim(piece);
    if (!member.empty() && match(member))
      found = true;
    return !found;
  });
  return found;
}

bool allowed(const Selector& s, auto&& match) {
  if (const auto hit = any_member(s.nouse, match); hit && *hit)
    return false;
  if (const auto hit = any_member(s.use, match); hit && !*hit)
    return false;
  return true;
}

}  // namespace

bool type_allowed(const Selector& selector, std::string_view device_type) noexcept {
  return allowed(selector, [&](std::string_view m) { return icontains(device_type, m); });
}

bool uuid_allowed(const Selector& selector, std::string_view device_id) noexcept {
  return allowed(selector, [&](std::string_view m) { return m == device_id; });
}

bool parse_bool_true(std::string_view text) noexcept {
  return text == "1" || text == "t" || text == "T" || text == "true" || text == "TRUE" ||
         text == "True";
}

}  // namespace hami::devices
