#include "fake_query.hpp"

#include <array>

namespace hami::testing::fake {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

}  // namespace

std::string percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
               hex_digit(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2])));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Query::Query(std::string_view raw) {
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t amp = raw.find('&', pos);
    if (amp == std::string_view::npos) {
      amp = raw.size();
    }
    const std::string_view pair = raw.substr(pos, amp - pos);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      std::string key = percent_decode(pair.substr(0, eq));
      std::string value =
          eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1));
      values_.emplace(std::move(key), std::move(value));
    }
    pos = amp + 1;
  }
}

std::string Query::get(std::string_view key, std::string_view fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? std::string(fallback) : it->second;
}

bool Query::has(std::string_view key) const {
  return values_.find(key) != values_.end();
}

bool Query::flag(std::string_view key) const {
  const std::string v = get(key);
  return v == "true" || v == "1";
}

std::string base64url_encode(std::string_view bytes) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (const char c : bytes) {
    acc = (acc << 8) | static_cast<uint8_t>(c);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(acc >> bits) & 0x3f]);
    }
  }
  if (bits > 0) {
    out.push_back(kAlphabet[(acc << (6 - bits)) & 0x3f]);
  }
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') {
      break;
    }
    const size_t v = kAlphabet.find(c);
    if (v == std::string_view::npos) {
      return std::nullopt;
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace hami::testing::fake
