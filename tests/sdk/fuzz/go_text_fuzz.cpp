// hami/go_text.hpp on arbitrary bytes: the JSON string append_go_json_string
// writes parses as JSON and reads back as go_decoded_string of the input
// (what Go's decoder would store); go_quote's output is valid UTF-8 with no
// raw control character, and the JSON output has no raw '<', '>' or '&'.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hami/go_text.hpp"

namespace {

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = hami::utf8_sequence_length(s, i);
    if (n == 0)
      return false;
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string json;
  hami::append_go_json_string(json, input);
  if (json.find_first_of("<>&") != std::string::npos)
    std::abort();
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsString())
    std::abort();
  if (std::string_view(doc.GetString(), doc.GetStringLength()) != hami::go_decoded_string(input))
    std::abort();
  const std::string quoted = hami::go_quote(input);
  if (!valid_utf8(quoted) || quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"')
    std::abort();
  for (const char c : quoted) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
      std::abort();
  }
  return 0;
}
