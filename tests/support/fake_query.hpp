// Query strings of API requests, decoded as Go's url.ParseQuery does
// ('+' is a space, %XX escapes), and the base64url text of list
// continuation tokens.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace hami::testing::fake {

class Query {
 public:
  explicit Query(std::string_view raw);
  // The first value of `key`; `fallback` when absent.
  std::string get(std::string_view key, std::string_view fallback = {}) const;
  bool has(std::string_view key) const;
  // "true"/"1" → true (absent → false).
  bool flag(std::string_view key) const;

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

std::string percent_decode(std::string_view text);
std::string base64url_encode(std::string_view bytes);
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace hami::testing::fake
