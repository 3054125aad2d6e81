#include "scheduling/reason_text.hpp"

#include <algorithm>
#include <charconv>

namespace hami::scheduling {

namespace {

bool digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<ReasonCount> reason_counts(std::string_view reason) {
  std::vector<ReasonCount> out;
  size_t start = 0;
  while (start < reason.size()) {
    size_t end = reason.find(", ", start);
    if (end == std::string_view::npos)
      end = reason.size();
    const std::string_view entry = reason.substr(start, end - start);
    const size_t space = entry.find(' ');
    const size_t slash = entry.find('/');
    if (space != std::string_view::npos && slash != std::string_view::npos && slash < space &&
        digits(entry.substr(0, slash)) && digits(entry.substr(slash + 1, space - slash - 1)) &&
        space + 1 < entry.size()) {
      size_t n = 0;
      const auto res = std::from_chars(entry.data(), entry.data() + slash, n);
      if (res.ec == std::errc())
        out.push_back({std::string(entry.substr(space + 1)), n});
    }
    start = end + 2;
  }
  return out;
}

std::vector<std::string> reason_codes(std::string_view reason) {
  std::vector<std::string> codes;
  for (ReasonCount& r : reason_counts(reason))
    codes.push_back(std::move(r.code));
  return codes;
}

}  // namespace hami::scheduling
