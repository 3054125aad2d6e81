// Helpers to read a reply's patch and apply it with nlohmann-json's RFC 6902
// implementation, independent of ours.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hami::admission::testing {

// Standard base64 with padding, strict.
inline std::string decode_base64(std::string_view text) {
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z')
      return c - 'A';
    if (c >= 'a' && c <= 'z')
      return c - 'a' + 26;
    if (c >= '0' && c <= '9')
      return c - '0' + 52;
    if (c == '+')
      return 62;
    if (c == '/')
      return 63;
    return -1;
  };
  if (text.size() % 4 != 0)
    throw std::invalid_argument("base64 length");
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t n = 0;
    int pad = 0;
    for (size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        ++pad;
        n <<= 6;
        continue;
      }
      const int v = value(c);
      if (v < 0 || pad != 0)
        throw std::invalid_argument("base64 character");
      n = n << 6 | static_cast<uint32_t>(v);
    }
    out.push_back(static_cast<char>(n >> 16 & 0xff));
    if (pad < 2)
      out.push_back(static_cast<char>(n >> 8 & 0xff));
    if (pad < 1)
      out.push_back(static_cast<char>(n & 0xff));
  }
  return out;
}

// The JSON Patch of a reply body; an empty array when it carries none.
inline nlohmann::json reply_patch(const std::string& reply_body) {
  const nlohmann::json reply = nlohmann::json::parse(reply_body);
  const nlohmann::json& response = reply.at("response");
  if (!response.contains("patch")) {
    if (response.contains("patchType"))
      throw std::logic_error("patchType without patch");
    return nlohmann::json::array();
  }
  if (response.at("patchType") != "JSONPatch")
    throw std::logic_error("patchType");
  return nlohmann::json::parse(decode_base64(response.at("patch").get<std::string>()));
}

}  // namespace hami::admission::testing
