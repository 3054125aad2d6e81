#include "register_format.hpp"

#include <charconv>
#include <string>

#include "hami/plugin.hpp"

namespace example {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) {
      return parts;
    }
    start = end + 1;
  }
}

template <class Int>
Int number(std::string_view field, std::string_view what, std::size_t record) {
  Int value{};
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc{} || end != field.data() + field.size() || value < 0) {
    throw hami::Error(HAMI_INVALID_ARGUMENT,
                      "registration record " + std::to_string(record) + ": " + std::string(what) +
                          " '" + std::string(field) + "' is not a non-negative integer");
  }
  return value;
}

}  // namespace

std::vector<RegisteredDevice> parse_registration(std::string_view value) {
  if (value.empty()) {
    throw hami::Error(HAMI_INVALID_ARGUMENT, "empty registration");
  }
  std::vector<RegisteredDevice> devices;
  std::size_t record = 0;
  for (const std::string_view text : split(value, ';')) {
    ++record;
    const std::vector<std::string_view> f = split(text, ',');
    if (f.size() != 6) {
      throw hami::Error(HAMI_INVALID_ARGUMENT, "registration record " + std::to_string(record) +
                                                   " has " + std::to_string(f.size()) +
                                                   " fields, expected 6");
    }
    if (f[0].empty() || (f[5] != "0" && f[5] != "1")) {
      throw hami::Error(HAMI_INVALID_ARGUMENT, "registration record " + std::to_string(record) +
                                                   ": empty id or health not 0/1");
    }
    devices.push_back(RegisteredDevice{
        std::string(f[0]), number<std::int32_t>(f[1], "count", record),
        number<std::int64_t>(f[2], "memory", record), number<std::int32_t>(f[3], "cores", record),
        std::string(f[4]), f[5] == "1"});
  }
  return devices;
}

}  // namespace example
