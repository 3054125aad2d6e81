// Standard base64 (RFC 4648 §4, padded): how Go's encoding/json writes a
// []byte (an AdmissionResponse's patch, a Secret's data, a webhook's
// caBundle, an ExecCredential's cluster CA) and how kubeconfig `*-data`
// keys carry files.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hami::platform {

// Appends the encoding of `bytes` to `out`.
inline void append_base64(std::string& out, std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto byte = [&](std::size_t i) {
    return static_cast<uint32_t>(static_cast<uint8_t>(bytes[i]));
  };
  out.reserve(out.size() + (bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    out.push_back(kAlphabet[n >> 18 & 63]);
    out.push_back(kAlphabet[n >> 12 & 63]);
    out.push_back(kAlphabet[n >> 6 & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    const uint32_t n = byte(i) << 16 | (rest == 2 ? byte(i + 1) << 8 : 0);
    out.push_back(kAlphabet[n >> 18 & 63]);
    out.push_back(kAlphabet[n >> 12 & 63]);
    out.push_back(rest == 2 ? kAlphabet[n >> 6 & 63] : '=');
    out.push_back('=');
  }
}

inline std::string base64_encode(std::string_view bytes) {
  std::string out;
  append_base64(out, bytes);
  return out;
}

enum class Base64Input {
  // Padded groups of four, only the alphabet: what Go's encoding/json writes.
  canonical,
  // Also whitespace anywhere (a PEM-wrapped value) and the final padding
  // left out: what kubeconfig files hold in practice.
  lenient,
};

// nullopt unless `text` is base64 as `input` describes; '=' only completes
// the final group.
inline std::optional<std::string> base64_decode(std::string_view text,
                                                Base64Input input = Base64Input::canonical) {
  static constexpr auto kValues = [] {
    std::array<int8_t, 256> values{};
    values.fill(-1);
    const std::string_view alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i)
      values[static_cast<unsigned char>(alphabet[i])] = static_cast<int8_t>(i);
    return values;
  }();
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t bits = 0;
  int count = 0;  // symbols of the group being read
  int padding = 0;
  for (const char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      if (input == Base64Input::canonical)
        return std::nullopt;
      continue;
    }
    if (c == '=') {
      ++padding;
      continue;
    }
    const int8_t v = kValues[static_cast<unsigned char>(c)];
    if (v < 0 || padding > 0)
      return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    if (++count == 4) {
      out += static_cast<char>((bits >> 16) & 0xFF);
      out += static_cast<char>((bits >> 8) & 0xFF);
      out += static_cast<char>(bits & 0xFF);
      bits = 0;
      count = 0;
    }
  }
  // A final group of 2 or 3 symbols carries 1 or 2 bytes; 1 symbol carries
  // none and means truncation. Padding, when present, completes the group.
  if (count == 1 || padding > 2 || (padding > 0 && count + padding != 4))
    return std::nullopt;
  if (input == Base64Input::canonical && count != 0 && padding == 0)
    return std::nullopt;
  if (count == 2) {
    out += static_cast<char>((bits >> 4) & 0xFF);
  } else if (count == 3) {
    out += static_cast<char>((bits >> 10) & 0xFF);
    out += static_cast<char>((bits >> 2) & 0xFF);
  }
  return out;
}

}  // namespace hami::platform
