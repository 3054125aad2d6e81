#include "admission/base64.hpp"

#include <cstdint>

namespace hami::admission {

void append_base64(std::string& out, std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])); };
  out.reserve(out.size() + (bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    out.push_back(kAlphabet[n >> 18 & 63]);
    out.push_back(kAlphabet[n >> 12 & 63]);
    out.push_back(kAlphabet[n >> 6 & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  const size_t rest = bytes.size() - i;
  if (rest == 1) {
    const uint32_t n = byte(i) << 16;
    out.push_back(kAlphabet[n >> 18 & 63]);
    out.push_back(kAlphabet[n >> 12 & 63]);
    out += "==";
  } else if (rest == 2) {
    const uint32_t n = byte(i) << 16 | byte(i + 1) << 8;
    out.push_back(kAlphabet[n >> 18 & 63]);
    out.push_back(kAlphabet[n >> 12 & 63]);
    out.push_back(kAlphabet[n >> 6 & 63]);
    out.push_back('=');
  }
}

}  // namespace hami::admission
