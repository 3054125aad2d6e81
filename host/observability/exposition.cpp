#include "observability/exposition.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>
#include <system_error>

#include "text/utf8.hpp"

namespace hami::observability {
namespace {

void sanitize(std::string& text) {
  if (!is_valid_utf8(text))
    text = to_valid_utf8(text);
}

bool less_values(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

bool same_labels(const MetricFamily& a, const MetricFamily& b) {
  if (a.label_names != b.label_names || a.const_labels.size() != b.const_labels.size())
    return false;
  for (size_t i = 0; i < a.const_labels.size(); ++i) {
    if (a.const_labels[i].name != b.const_labels[i].name ||
        a.const_labels[i].value != b.const_labels[i].value) {
      return false;
    }
  }
  return true;
}

// Puts the label names (and every series' values) in name order, and the
// const labels too, so series order and output order follow label names.
void canonicalize_labels(MetricFamily& f) {
  std::sort(f.const_labels.begin(), f.const_labels.end(),
            [](const Label& a, const Label& b) { return a.name < b.name; });
  std::vector<size_t> order(f.label_names.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return f.label_names[a] < f.label_names[b]; });
  if (std::is_sorted(order.begin(), order.end()))
    return;
  const auto permute = [&](std::vector<std::string>& values) {
    std::vector<std::string> sorted;
    sorted.reserve(values.size());
    for (const size_t i : order)
      sorted.push_back(std::move(values[i]));
    values = std::move(sorted);
  };
  permute(f.label_names);
  for (Series& s : f.series)
    permute(s.label_values);
}

// A histogram's series names that other families must not use.
bool collides_with_histogram(std::string_view name, const std::set<std::string>& histograms) {
  for (const std::string_view suffix : {"_bucket", "_sum", "_count"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix) &&
        histograms.contains(std::string(name.substr(0, name.size() - suffix.size())))) {
      return true;
    }
  }
  return false;
}

void append_labels(std::string& out, const MetricFamily& f, const Series& s,
                   std::string_view le = {}) {
  const bool any = !f.label_names.empty() || !f.const_labels.empty() || !le.empty();
  if (!any)
    return;
  out += '{';
  bool first = true;
  const auto label = [&](std::string_view name, std::string_view value) {
    if (!first)
      out += ',';
    first = false;
    out += name;
    out += "=\"";
    append_label_value(out, value);
    out += '"';
  };
  // Both lists are sorted by name: merge them.
  size_t v = 0;
  size_t c = 0;
  while (v < f.label_names.size() || c < f.const_labels.size()) {
    if (c == f.const_labels.size() ||
        (v < f.label_names.size() && f.label_names[v] < f.const_labels[c].name)) {
      label(f.label_names[v], s.label_values[v]);
      ++v;
    } else {
      label(f.const_labels[c].name, f.const_labels[c].value);
      ++c;
    }
  }
  if (!le.empty())
    label("le", le);
  out += '}';
}

void append_sample(std::string& out, std::string_view name, std::string_view suffix,
                   const MetricFamily& f, const Series& s, double value, std::string_view le = {}) {
  out += name;
  out += suffix;
  append_labels(out, f, s, le);
  out += ' ';
  out += format_value(value);
  out += '\n';
}

}  // namespace

void append_label_value(std::string& out, std::string_view value) {
  const std::string valid = is_valid_utf8(value) ? std::string() : to_valid_utf8(value);
  const std::string_view text = valid.empty() ? value : std::string_view(valid);
  for (const char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

void append_help(std::string& out, std::string_view help) {
  const std::string valid = is_valid_utf8(help) ? std::string() : to_valid_utf8(help);
  const std::string_view text = valid.empty() ? help : std::string_view(valid);
  for (const char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

std::string format_value(double value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value > 0 ? "+Inf" : "-Inf";
  if (value == 0)
    return "0";
  // Shortest round-trip digits, then laid out as Go's 'g' with precision
  // -1: exponent form when the decimal exponent is < -4 or >= 6 (Go uses 6
  // for the shortest form), else fixed.
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  if (ec != std::errc())
    throw std::logic_error("format_value: to_chars failed");
  std::string_view text(buf, static_cast<size_t>(end - buf));
  std::string out;
  if (text.front() == '-') {
    out += '-';
    text.remove_prefix(1);
  }
  const size_t e = text.find('e');
  std::string digits(1, text[0]);
  if (e > 1)
    digits.append(text.substr(2, e - 2));
  int exponent = 0;
  const std::string_view exp_text = text.substr(e + 1);
  const size_t skip = exp_text.front() == '+' ? 1 : 0;
  std::from_chars(exp_text.data() + skip, exp_text.data() + exp_text.size(), exponent);
  const int nd = static_cast<int>(digits.size());
  if (exponent < -4 || exponent >= 6) {
    out += digits[0];
    if (nd > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    out += 'e';
    out += exponent < 0 ? '-' : '+';
    const int magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude < 10)
      out += '0';
    out += std::to_string(magnitude);
    return out;
  }
  const int dp = exponent + 1;  // digits before the decimal point
  if (dp <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-dp), '0');
    out += digits;
  } else if (dp >= nd) {
    out += digits;
    out.append(static_cast<size_t>(dp - nd), '0');
  } else {
    out.append(digits, 0, static_cast<size_t>(dp));
    out += '.';
    out.append(digits, static_cast<size_t>(dp), std::string::npos);
  }
  return out;
}

std::vector<std::string> normalize(std::vector<MetricFamily>& families) {
  std::vector<std::string> problems;
  std::vector<MetricFamily> valid;
  valid.reserve(families.size());
  for (MetricFamily& f : families) {
    try {
      validate_family(f);
    } catch (const std::invalid_argument& e) {
      problems.emplace_back(e.what());
      continue;
    }
    sanitize(f.help);
    for (Label& l : f.const_labels)
      sanitize(l.value);
    for (Series& s : f.series) {
      for (std::string& v : s.label_values)
        sanitize(v);
    }
    canonicalize_labels(f);
    valid.push_back(std::move(f));
  }
  std::stable_sort(valid.begin(), valid.end(),
                   [](const MetricFamily& a, const MetricFamily& b) { return a.name < b.name; });

  std::vector<MetricFamily> merged;
  merged.reserve(valid.size());
  for (MetricFamily& f : valid) {
    if (!merged.empty() && merged.back().name == f.name) {
      MetricFamily& first = merged.back();
      if (first.type == f.type && same_labels(first, f)) {
        std::move(f.series.begin(), f.series.end(), std::back_inserter(first.series));
      } else {
        problems.push_back("metric family " + f.name +
                           ": defined twice with different types or labels; the second dropped");
      }
      continue;
    }
    merged.push_back(std::move(f));
  }

  std::set<std::string> histograms;
  for (const MetricFamily& f : merged) {
    if (f.type == MetricType::histogram)
      histograms.insert(f.name);
  }
  families.clear();
  for (MetricFamily& f : merged) {
    if (collides_with_histogram(f.name, histograms)) {
      problems.push_back("metric family " + f.name + ": collides with a histogram's series");
      continue;
    }
    std::stable_sort(f.series.begin(), f.series.end(), [](const Series& a, const Series& b) {
      return less_values(a.label_values, b.label_values);
    });
    const auto last = std::unique(
        f.series.begin(), f.series.end(),
        [](const Series& a, const Series& b) { return a.label_values == b.label_values; });
    if (last != f.series.end()) {
      problems.push_back("metric family " + f.name + ": " +
                         std::to_string(std::distance(last, f.series.end())) +
                         " duplicate series dropped");
      f.series.erase(last, f.series.end());
    }
    if (!f.series.empty())
      families.push_back(std::move(f));
  }
  return problems;
}

std::string encode_text(const std::vector<MetricFamily>& families) {
  std::string out;
  for (const MetricFamily& f : families) {
    if (!f.help.empty()) {
      out += "# HELP ";
      out += f.name;
      out += ' ';
      append_help(out, f.help);
      out += '\n';
    }
    out += "# TYPE ";
    out += f.name;
    out += ' ';
    out += type_name(f.type);
    out += '\n';
    for (const Series& s : f.series) {
      if (f.type != MetricType::histogram) {
        append_sample(out, f.name, "", f, s, s.value);
        continue;
      }
      for (const Bucket& b : s.buckets) {
        append_sample(out, f.name, "_bucket", f, s, static_cast<double>(b.cumulative_count),
                      format_value(b.upper_bound));
      }
      append_sample(out, f.name, "_bucket", f, s, static_cast<double>(s.count), "+Inf");
      append_sample(out, f.name, "_sum", f, s, s.sum);
      append_sample(out, f.name, "_count", f, s, static_cast<double>(s.count));
    }
  }
  return out;
}

std::string encode_text_normalized(std::vector<MetricFamily> families,
                                   std::vector<std::string>* problems) {
  auto found = normalize(families);
  if (problems != nullptr)
    *problems = std::move(found);
  return encode_text(families);
}

}  // namespace hami::observability
