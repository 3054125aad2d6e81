#include "admission/json_text.hpp"

#include "hami/go_text.hpp"
#include "text/utf8.hpp"

namespace hami::admission {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t clean = 0;  // start of the run of bytes that are copied unchanged
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const size_t n = text::utf8_sequence_length(text, i);
      if (n != 0) {
        i += n;
        continue;
      }
      out.append(text.data() + clean, i - clean);
      out += "\xEF\xBF\xBD";  // U+FFFD
      clean = ++i;
      continue;
    }
    out.append(text.data() + clean, i - clean);
    clean = ++i;
    if (const char* escape = go_short_escape(c, false)) {
      out += escape;
    } else {
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  out.append(text.data() + clean, text.size() - clean);
  out.push_back('"');
}

}  // namespace hami::admission
