#include "exposition_parser.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace hami::testing {
namespace {

[[noreturn]] void fail(size_t line, const std::string& what) {
  throw ParseError("line " + std::to_string(line) + ": " + what);
}

bool metric_name_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
         (!first && c >= '0' && c <= '9');
}

bool label_name_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (!first && c >= '0' && c <= '9');
}

// Independent of the library's own check on purpose.
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size())
      return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80)
        return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    const uint32_t min[] = {0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n + 1;
  }
  return true;
}

double parse_value(std::string_view token, size_t line) {
  if (token == "NaN")
    return std::numeric_limits<double>::quiet_NaN();
  if (token == "+Inf")
    return std::numeric_limits<double>::infinity();
  if (token == "-Inf")
    return -std::numeric_limits<double>::infinity();
  if (token.empty())
    fail(line, "missing value");
  for (const char c : token) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      fail(line, "malformed value \"" + std::string(token) + "\"");
  }
  std::string_view t = token;
  if (t.front() == '+')
    t.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size())
    fail(line, "malformed value \"" + std::string(token) + "\"");
  return v;
}

std::string unescape_help(std::string_view text, size_t line) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (i + 1 == text.size())
      fail(line, "HELP ends in a lone backslash");
    const char e = text[++i];
    if (e == '\\')
      out += '\\';
    else if (e == 'n')
      out += '\n';
    else
      fail(line, std::string("invalid HELP escape \\") + e);
  }
  if (!valid_utf8(out))
    fail(line, "HELP is not valid UTF-8");
  return out;
}

struct Cursor {
  std::string_view text;
  size_t pos = 0;
  size_t line = 0;

  bool done() const { return pos >= text.size(); }
  char peek() const { return done() ? '\0' : text[pos]; }
  void expect(char c) {
    if (peek() != c)
      fail(line, std::string("expected '") + c + "' at column " + std::to_string(pos + 1));
    ++pos;
  }
};

std::string read_metric_name(Cursor& c) {
  const size_t start = c.pos;
  while (!c.done() && metric_name_char(c.peek(), c.pos == start))
    ++c.pos;
  if (c.pos == start)
    fail(c.line, "missing metric name");
  return std::string(c.text.substr(start, c.pos - start));
}

void read_labels(Cursor& c, ParsedSample& sample) {
  c.expect('{');
  if (c.peek() == '}') {
    ++c.pos;
    return;
  }
  while (true) {
    const size_t start = c.pos;
    while (!c.done() && label_name_char(c.peek(), c.pos == start))
      ++c.pos;
    if (c.pos == start)
      fail(c.line, "missing label name");
    std::string name(c.text.substr(start, c.pos - start));
    if (name.starts_with("__"))
      fail(c.line, "reserved label name " + name);
    c.expect('=');
    c.expect('"');
    std::string value;
    while (true) {
      if (c.done())
        fail(c.line, "unterminated label value");
      const char ch = c.text[c.pos++];
      if (ch == '"')
        break;
      if (ch != '\\') {
        value += ch;
        continue;
      }
      if (c.done())
        fail(c.line, "unterminated escape");
      const char e = c.text[c.pos++];
      if (e == '\\')
        value += '\\';
      else if (e == '"')
        value += '"';
      else if (e == 'n')
        value += '\n';
      else
        fail(c.line, std::string("invalid label value escape \\") + e);
    }
    if (!valid_utf8(value))
      fail(c.line, "label " + name + " is not valid UTF-8");
    if (!sample.labels.emplace(name, value).second)
      fail(c.line, "label " + name + " appears twice");
    sample.label_order.push_back(name);
    if (c.peek() == ',') {
      ++c.pos;
      if (c.peek() == '}')
        fail(c.line, "trailing comma in label set");
      continue;
    }
    c.expect('}');
    return;
  }
}

bool belongs(const ParsedFamily& f, std::string_view sample) {
  if (f.type == "histogram") {
    for (const std::string_view suffix : {"_bucket", "_sum", "_count"}) {
      if (sample == f.name + std::string(suffix))
        return true;
    }
    return false;
  }
  if (f.type == "summary")
    return sample == f.name || sample == f.name + "_sum" || sample == f.name + "_count";
  return sample == f.name;
}

std::string series_key(const ParsedSample& s, bool without_le = false) {
  std::string key = without_le ? std::string() : s.name;
  for (const auto& [k, v] : s.labels) {
    if (without_le && k == "le")
      continue;
    key += '\x1f' + k + '\x1e' + v;
  }
  return key;
}

void check_histogram(const ParsedFamily& f) {
  struct Group {
    std::vector<std::pair<double, double>> buckets;  // le, count
    bool has_sum = false;
    bool has_count = false;
    double count = 0;
  };
  std::map<std::string, Group> groups;
  for (const ParsedSample& s : f.samples) {
    Group& g = groups[series_key(s, true)];
    if (s.name == f.name + "_bucket") {
      const auto le = s.labels.find("le");
      if (le == s.labels.end())
        throw ParseError(f.name + ": bucket without le");
      g.buckets.emplace_back(parse_value(le->second, 0), s.value);
    } else if (s.name == f.name + "_sum") {
      g.has_sum = true;
    } else {
      g.has_count = true;
      g.count = s.value;
    }
  }
  for (const auto& [key, g] : groups) {
    if (g.buckets.empty() || !g.has_sum || !g.has_count)
      throw ParseError(f.name + ": histogram series without buckets, _sum or _count");
    for (size_t i = 1; i < g.buckets.size(); ++i) {
      if (!(g.buckets[i].first > g.buckets[i - 1].first))
        throw ParseError(f.name + ": bucket bounds not increasing");
      if (g.buckets[i].second < g.buckets[i - 1].second)
        throw ParseError(f.name + ": bucket counts decrease");
    }
    if (!std::isinf(g.buckets.back().first) || g.buckets.back().first < 0)
      throw ParseError(f.name + ": last bucket is not +Inf");
    if (g.buckets.back().second != g.count)
      throw ParseError(f.name + ": +Inf bucket differs from _count");
  }
}

}  // namespace

const ParsedFamily* ParsedExposition::family(std::string_view name) const {
  for (const ParsedFamily& f : families) {
    if (f.name == name)
      return &f;
  }
  return nullptr;
}

std::vector<const ParsedSample*> ParsedExposition::find(
    std::string_view name, const std::map<std::string, std::string>& match) const {
  std::vector<const ParsedSample*> out;
  for (const ParsedFamily& f : families) {
    for (const ParsedSample& s : f.samples) {
      if (s.name != name)
        continue;
      bool ok = true;
      for (const auto& [k, v] : match) {
        const auto it = s.labels.find(k);
        ok = ok && it != s.labels.end() && it->second == v;
      }
      if (ok)
        out.push_back(&s);
    }
  }
  return out;
}

double ParsedExposition::value(std::string_view name,
                               const std::map<std::string, std::string>& match) const {
  const auto found = find(name, match);
  if (found.size() != 1) {
    throw std::runtime_error("expected one sample of " + std::string(name) + ", found " +
                             std::to_string(found.size()));
  }
  return found.front()->value;
}

ParsedExposition parse_exposition(std::string_view text) {
  ParsedExposition out;
  if (text.empty())
    return out;
  if (text.back() != '\n')
    throw ParseError("the exposition does not end with a newline");
  std::set<std::string> seen_families;
  std::set<std::string> seen_series;
  ParsedFamily* current = nullptr;
  const auto start_family = [&](const std::string& name, size_t line) {
    if (current != nullptr && current->name == name)
      return;
    if (!seen_families.insert(name).second)
      fail(line, "family " + name + " appears again after other families");
    out.families.push_back({});
    current = &out.families.back();
    current->name = name;
  };

  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = text.find('\n', pos);
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty())
      fail(line_no, "empty line");
    if (line.front() == '#') {
      const bool help = line.starts_with("# HELP ");
      const bool type = line.starts_with("# TYPE ");
      if (!help && !type)
        fail(line_no, "comment that is neither HELP nor TYPE");
      Cursor c{line, 7, line_no};
      const std::string name = read_metric_name(c);
      start_family(name, line_no);
      if (help) {
        if (current->has_help)
          fail(line_no, "second HELP for " + name);
        current->has_help = true;
        if (!c.done()) {
          c.expect(' ');
          current->help = unescape_help(line.substr(c.pos), line_no);
        }
      } else {
        if (!current->type.empty())
          fail(line_no, "second TYPE for " + name);
        if (!current->samples.empty())
          fail(line_no, "TYPE after samples of " + name);
        c.expect(' ');
        const std::string_view t = line.substr(c.pos);
        if (t != "counter" && t != "gauge" && t != "histogram" && t != "summary" && t != "untyped")
          fail(line_no, "unknown type " + std::string(t));
        current->type = std::string(t);
      }
      continue;
    }
    Cursor c{line, 0, line_no};
    ParsedSample sample;
    sample.name = read_metric_name(c);
    if (c.peek() == '{')
      read_labels(c, sample);
    c.expect(' ');
    const std::string_view rest = line.substr(c.pos);
    const size_t space = rest.find(' ');
    sample.value = parse_value(rest.substr(0, space), line_no);
    if (space != std::string_view::npos) {
      const std::string_view ts = rest.substr(space + 1);
      int64_t t = 0;
      const auto [p, ec] = std::from_chars(ts.data(), ts.data() + ts.size(), t);
      if (ec != std::errc() || p != ts.data() + ts.size())
        fail(line_no, "malformed timestamp");
    }
    if (current == nullptr || !belongs(*current, sample.name))
      fail(line_no, "sample " + sample.name + " outside its family or without TYPE");
    if (current->type.empty())
      fail(line_no, "sample before TYPE of " + current->name);
    const bool bucket = current->type == "histogram" && sample.name == current->name + "_bucket";
    if (sample.labels.contains("le") != bucket)
      fail(line_no, bucket ? "bucket without le" : "le on a sample that is not a bucket");
    if (current->type == "counter" && (std::isnan(sample.value) || sample.value < 0))
      fail(line_no, "counter value is negative or NaN");
    if (!seen_series.insert(series_key(sample)).second)
      fail(line_no, "duplicate series " + sample.name);
    current->samples.push_back(std::move(sample));
  }
  for (const ParsedFamily& f : out.families) {
    if (f.type == "histogram")
      check_histogram(f);
  }
  return out;
}

}  // namespace hami::testing
