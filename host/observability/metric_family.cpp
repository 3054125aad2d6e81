#include "observability/metric_family.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace hami::observability {
namespace {

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::string_view type_name(MetricType type) {
  switch (type) {
    case MetricType::counter:
      return "counter";
    case MetricType::gauge:
      return "gauge";
    case MetricType::histogram:
      return "histogram";
  }
  return "untyped";
}

bool valid_metric_name(std::string_view name) {
  if (name.empty())
    return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = is_alpha(c) || c == '_' || c == ':' || (i > 0 && is_digit(c));
    if (!ok)
      return false;
  }
  return true;
}

bool valid_label_name(std::string_view name) {
  if (name.empty() || name.starts_with("__"))
    return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = is_alpha(c) || c == '_' || (i > 0 && is_digit(c));
    if (!ok)
      return false;
  }
  return true;
}

void validate_family(const MetricFamily& family) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("metric family " + family.name + ": " + what);
  };
  if (!valid_metric_name(family.name))
    fail("invalid metric name");
  std::set<std::string_view> names;
  const auto check_label = [&](std::string_view label) {
    if (!valid_label_name(label))
      fail("invalid label name \"" + std::string(label) + "\"");
    if (family.type == MetricType::histogram && label == "le")
      fail("a histogram may not have a label named le");
    if (!names.insert(label).second)
      fail("label " + std::string(label) + " appears twice");
  };
  for (const std::string& label : family.label_names)
    check_label(label);
  for (const Label& label : family.const_labels)
    check_label(label.name);
  for (const Series& s : family.series) {
    if (s.label_values.size() != family.label_names.size()) {
      fail("a series has " + std::to_string(s.label_values.size()) + " label values for " +
           std::to_string(family.label_names.size()) + " labels");
    }
    if (family.type != MetricType::histogram)
      continue;
    double previous_bound = -std::numeric_limits<double>::infinity();
    uint64_t previous_count = 0;
    for (const Bucket& b : s.buckets) {
      if (!(b.upper_bound > previous_bound) || std::isinf(b.upper_bound))
        fail("histogram bucket bounds must be finite and increasing");
      if (b.cumulative_count < previous_count)
        fail("histogram bucket counts must not decrease");
      previous_bound = b.upper_bound;
      previous_count = b.cumulative_count;
    }
    if (s.count < previous_count)
      fail("histogram count is below its last bucket");
  }
}

}  // namespace hami::observability
