#include "vastai_die.hpp"

#include <charconv>
#include <cstddef>

#include "errors.hpp"
#include "vastai_names.hpp"

namespace hami::devices::vastai {
namespace {

using Kind = CustomMember::Kind;

CustomMember member(const RegisteredDevice& d, std::string_view key) {
  CustomMember m;
  for (const RegisteredCustomValue& v : d.custom_info) {
    if (v.key != key)
      continue;
    if (v.kind == RegisteredCustomValue::Kind::String)
      m = CustomMember{Kind::String, v.text};
    else
      m = CustomMember{Kind::Other, {}};
  }
  return m;
}

void encode_member(const CustomMember& m, std::string& out) {
  switch (m.kind) {
    case Kind::Absent:
      out += '-';
      return;
    case Kind::Other:
      out += '*';
      return;
    case Kind::String:
      out += std::to_string(m.text.size());
      out += ':';
      out += m.text;
      return;
  }
}

[[noreturn]] void malformed(std::string_view text, std::string_view why) {
  throw InvalidInput("vastai attributes \"" + std::string(text) + "\": " + std::string(why));
}

// Reads one member at `pos` of `text`, advancing `pos`.
CustomMember decode_member(std::string_view text, std::size_t& pos) {
  if (pos >= text.size())
    malformed(text, "a member is missing");
  if (text[pos] == '-') {
    ++pos;
    return {};
  }
  if (text[pos] == '*') {
    ++pos;
    return CustomMember{Kind::Other, {}};
  }
  const std::size_t colon = text.find(':', pos);
  if (colon == std::string_view::npos || colon == pos)
    malformed(text, "expected '-', '*' or a length at offset " + std::to_string(pos));
  const std::string_view digits = text.substr(pos, colon - pos);
  if (digits.size() > 1 && digits[0] == '0')
    malformed(text, "length with a leading zero");
  std::size_t len = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), len);
  if (ec != std::errc{} || end != digits.data() + digits.size())
    malformed(text, "length \"" + std::string(digits) + "\" is not a number");
  pos = colon + 1;
  if (len > text.size() - pos)
    malformed(text, "string member longer than the text");
  const CustomMember m{Kind::String, text.substr(pos, len)};
  pos += len;
  return m;
}

}  // namespace

bool DieInfo::is_die() const noexcept {
  return strategy.kind == Kind::String && strategy.text == kDieStrategy;
}

bool DieInfo::other_strategy() const noexcept {
  return strategy.kind == Kind::String && strategy.text != kDieStrategy;
}

std::optional<std::string_view> DieInfo::card() const noexcept {
  if (aic.kind != Kind::String)
    return std::nullopt;
  return aic.text;
}

DieInfo die_info(const RegisteredDevice& device) {
  return DieInfo{member(device, kStrategyKey), member(device, kAicKey)};
}

std::string encode_die_attributes(const DieInfo& info) {
  std::string out;
  if (info.strategy.kind == Kind::Absent && info.aic.kind == Kind::Absent)
    return out;
  encode_member(info.strategy, out);
  encode_member(info.aic, out);
  return out;
}

DieInfo decode_die_attributes(std::string_view text) {
  DieInfo info;
  if (text.empty())
    return info;
  std::size_t pos = 0;
  info.strategy = decode_member(text, pos);
  info.aic = decode_member(text, pos);
  if (pos != text.size())
    malformed(text, "trailing bytes at offset " + std::to_string(pos));
  if (info.strategy.kind == Kind::Absent && info.aic.kind == Kind::Absent)
    malformed(text, "no member present is written as the empty text");
  return info;
}

}  // namespace hami::devices::vastai
