#include "config/yaml_json.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "config/config_error.hpp"

namespace hami::config {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

bool is_null_word(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<bool> bool_word(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE")
    return true;
  if (s == "false" || s == "False" || s == "FALSE")
    return false;
  return std::nullopt;
}

bool all_of(std::string_view s, bool (*pred)(char)) {
  if (s.empty())
    return false;
  for (const char c : s) {
    if (!pred(c))
      return false;
  }
  return true;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_oct(char c) {
  return c >= '0' && c <= '7';
}

// Writes an integer scalar; false when `s` is not one that fits 64 bits.
bool write_int(std::string_view s, JsonWriter& w) {
  if (s.size() > 2 && (s.substr(0, 2) == "0x" || s.substr(0, 2) == "0o")) {
    const std::string_view digits = s.substr(2);
    const int base = s[1] == 'x' ? 16 : 8;
    if (!all_of(digits, base == 16 ? is_hex : is_oct))
      return false;
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    if (ec != std::errc{} || end != digits.data() + digits.size())
      return false;
    w.Uint64(v);
    return true;
  }
  std::string_view body = s;
  if (!body.empty() && (body.front() == '-' || body.front() == '+'))
    body.remove_prefix(1);
  if (!all_of(body, is_digit))
    return false;
  if (s.front() == '-') {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size())
      return false;
    w.Int64(v);
    return true;
  }
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec != std::errc{} || end != body.data() + body.size())
    return false;
  w.Uint64(v);
  return true;
}

// [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
bool is_float_text(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+'))
    ++i;
  size_t mantissa_digits = 0;
  while (i < s.size() && is_digit(s[i])) {
    ++i;
    ++mantissa_digits;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) {
      ++i;
      ++mantissa_digits;
    }
  }
  if (mantissa_digits == 0)
    return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+'))
      ++i;
    size_t exp_digits = 0;
    while (i < s.size() && is_digit(s[i])) {
      ++i;
      ++exp_digits;
    }
    if (exp_digits == 0)
      return false;
  }
  return i == s.size();
}

void write_string(std::string_view s, JsonWriter& w) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void write_scalar(const YAML::Node& node, JsonWriter& w) {
  const std::string& s = node.Scalar();
  if (node.Tag() != "?") {  // quoted ("!") or explicitly tagged
    write_string(s, w);
    return;
  }
  if (is_null_word(s)) {
    w.Null();
    return;
  }
  if (const auto b = bool_word(s)) {
    w.Bool(*b);
    return;
  }
  if (write_int(s, w))
    return;
  if (is_float_text(s)) {
    const std::string text(s);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    // Beyond a double's range (1e999) it stays text, as .inf does: the
    // writer refuses infinity only after starting the value, and writing
    // the text then as well broke the JSON.
    if (end == text.c_str() + text.size() && std::isfinite(v)) {
      w.Double(v);
      return;
    }
  }
  write_string(s, w);
}

// Deeper than any real plugin config; also stops a self-referencing alias
// (`&a {k: *a}`), which yaml-cpp turns into a cyclic node graph.
constexpr int kMaxDepth = 64;

struct Output {
  explicit Output(std::size_t max) : max_bytes(max) {}
  rapidjson::StringBuffer buffer;
  JsonWriter writer{buffer};
  std::size_t max_bytes;
};

void write_node(const YAML::Node& node, std::string_view file, const std::string& path, Output& out,
                int depth) {
  if (depth > kMaxDepth) {
    throw ConfigError(std::string(file) + ": " + path + ": nested deeper than " +
                      std::to_string(kMaxDepth) + " levels (or a recursive alias)");
  }
  if (out.buffer.GetSize() > out.max_bytes) {
    throw ConfigError(std::string(file) + ": " + path + ": converts to more than " +
                      std::to_string(out.max_bytes) + " bytes of JSON (aliases expanding?)");
  }
  JsonWriter& w = out.writer;
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      w.Null();
      return;
    case YAML::NodeType::Scalar:
      write_scalar(node, w);
      return;
    case YAML::NodeType::Sequence: {
      w.StartArray();
      size_t i = 0;
      for (const auto& item : node) {
        write_node(item, file, path + "[" + std::to_string(i) + "]", out, depth + 1);
        ++i;
      }
      w.EndArray();
      return;
    }
    case YAML::NodeType::Map: {
      w.StartObject();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          throw ConfigError(std::string(file) + ": " + path +
                            ": mapping keys must be plain text to convert to JSON");
        }
        const std::string& key = kv.first.Scalar();
        write_string(key, w);
        write_node(kv.second, file, path.empty() ? key : path + "." + key, out, depth + 1);
      }
      w.EndObject();
      return;
    }
  }
}

}  // namespace

std::string yaml_to_json(const YAML::Node& node, std::string_view file, std::string_view path,
                         std::size_t max_bytes) {
  Output out(max_bytes);
  write_node(node, file, std::string(path), out, 0);
  if (out.buffer.GetSize() > max_bytes) {
    throw ConfigError(std::string(file) + ": " + std::string(path) + ": converts to more than " +
                      std::to_string(max_bytes) + " bytes of JSON (aliases expanding?)");
  }
  return std::string(out.buffer.GetString(), out.buffer.GetSize());
}

}  // namespace hami::config
