#include "config/yaml_reader.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <set>

#include "config/config_error.hpp"

namespace hami::config {

std::string describe_node(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Scalar:
      break;
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const std::string& s = node.Scalar();
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return std::string(buf.GetString(), buf.GetSize());
}

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty())
    return std::string(key);
  std::string out(parent);
  out += '.';
  out += key;
  return out;
}

YamlReader::YamlReader(std::string file, std::filesystem::path base_dir)
    : file_(std::move(file)), base_dir_(std::move(base_dir)) {}

YAML::Node YamlReader::parse(const std::string& text) const {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(file_ + ": line " + std::to_string(e.mark.line + 1) + ", column " +
                      std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
  }
}

void YamlReader::fail(std::string_view path, std::string_view what) const {
  std::string msg = file_;
  msg += ": ";
  if (!path.empty()) {
    msg += path;
    msg += ": ";
  }
  msg += what;
  throw ConfigError(msg);
}

void YamlReader::expect_mapping(const YAML::Node& node, std::string_view path,
                                std::initializer_list<std::string_view> allowed) const {
  if (node.IsNull())
    return;
  if (!node.IsMap()) {
    fail(path, "expected a mapping, got " + describe_node(node));
  }
  std::set<std::string, std::less<>> seen;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) {
      fail(path, "expected text keys, got " + describe_node(kv.first));
    }
    const std::string& key = kv.first.Scalar();
    bool known = false;
    for (const auto a : allowed)
      known = known || a == key;
    if (!known) {
      std::string list;
      for (const auto a : allowed) {
        if (!list.empty())
          list += ", ";
        list += a;
      }
      fail(join_path(path, key), "unknown key (expected one of: " + list + ")");
    }
    if (!seen.insert(key).second)
      fail(join_path(path, key), "duplicate key");
  }
}

void YamlReader::expect_sequence(const YAML::Node& node, std::string_view path) const {
  if (!node.IsSequence())
    fail(path, "expected a list, got " + describe_node(node));
}

std::string YamlReader::string(const YAML::Node& node, std::string_view path,
                               bool allow_empty) const {
  if (!node.IsScalar())
    fail(path, "expected a string, got " + describe_node(node));
  const std::string& s = node.Scalar();
  if (s.empty() && !allow_empty)
    fail(path, "expected a non-empty string");
  return s;
}

bool YamlReader::boolean(const YAML::Node& node, std::string_view path) const {
  if (node.IsScalar() && node.Tag() == "?") {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "True" || s == "TRUE")
      return true;
    if (s == "false" || s == "False" || s == "FALSE")
      return false;
  }
  fail(path, "expected true or false, got " + describe_node(node));
}

int64_t YamlReader::integer(const YAML::Node& node, std::string_view path, int64_t min,
                            int64_t max) const {
  std::string expected;
  if (min == 1 && max == INT32_MAX) {
    expected = "expected a positive integer";
  } else if (min == 0 && max == INT32_MAX) {
    expected = "expected a non-negative integer";
  } else {
    expected = "expected an integer from " + std::to_string(min) + " to " + std::to_string(max);
  }
  if (!node.IsScalar() || node.Tag() != "?")
    fail(path, expected + ", got " + describe_node(node));
  const std::string& s = node.Scalar();
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  const bool whole = end == s.data() + s.size();
  const bool too_large = whole && ((ec == std::errc{} && v > max) ||
                                   (ec == std::errc::result_out_of_range && s.front() != '-'));
  if (ec == std::errc{} && whole && v >= min && v <= max)
    return v;
  if (too_large && (min == 0 || min == 1) && max == INT32_MAX) {
    fail(path,
         expected + " no larger than " + std::to_string(max) + ", got " + describe_node(node));
  }
  fail(path, expected + ", got " + describe_node(node));
}

double YamlReader::number(const YAML::Node& node, std::string_view path, double min,
                          double max) const {
  const auto text = [](double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.')
      s.pop_back();
    return s;
  };
  const std::string expected = "expected a number from " + text(min) + " to " + text(max);
  if (!node.IsScalar() || node.Tag() != "?")
    fail(path, expected + ", got " + describe_node(node));
  const std::string& s = node.Scalar();
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || !(v >= min && v <= max))
    fail(path, expected + ", got " + describe_node(node));
  return v;
}

std::filesystem::path YamlReader::resolve(const std::filesystem::path& p) const {
  if (p.empty() || p.is_absolute())
    return p.lexically_normal();
  return (base_dir_ / p).lexically_normal();
}

std::filesystem::path YamlReader::path(const YAML::Node& node, std::string_view key_path) const {
  return resolve(std::filesystem::path(string(node, key_path, true)));
}

std::string YamlReader::choice(const YAML::Node& node, std::string_view path,
                               std::initializer_list<std::string_view> choices) const {
  std::string list;
  for (const auto c : choices) {
    if (!list.empty())
      list += ", ";
    list += c;
  }
  if (node.IsScalar()) {
    for (const auto c : choices) {
      if (node.Scalar() == c)
        return node.Scalar();
    }
  }
  fail(path, "expected one of " + list + ", got " + describe_node(node));
}

}  // namespace hami::config
