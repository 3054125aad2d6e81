// The data a scrape is made of: metric families with their series, as
// plain values. Instruments snapshot themselves into these, collectors build
// them at scrape time, and the exposition encoder writes them out.
//
// A family names its label set once (`label_names`); every series carries
// the values in the same order. `const_labels` are added to every series
// of the family when it is encoded (HAMi's zone="vGPU").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hami::observability {

enum class MetricType { counter, gauge, histogram };

// "counter", "gauge", "histogram" (the word of a `# TYPE` line).
std::string_view type_name(MetricType type);

struct Label {
  std::string name;
  std::string value;
};

// One cumulative histogram bucket: observations <= upper_bound.
struct Bucket {
  double upper_bound = 0;
  uint64_t cumulative_count = 0;
};

struct Series {
  std::vector<std::string> label_values;
  double value = 0;  // counter and gauge
  // Histogram only: buckets in increasing upper_bound, excluding +Inf (the
  // encoder adds le="+Inf" with `count`).
  std::vector<Bucket> buckets;
  double sum = 0;
  uint64_t count = 0;
};

struct MetricFamily {
  std::string name;
  std::string help;
  MetricType type = MetricType::gauge;
  std::vector<std::string> label_names;
  std::vector<Label> const_labels;
  std::vector<Series> series;

  // Appends a counter or gauge series; `values` must match label_names.
  void add(std::vector<std::string> values, double value) {
    Series s;
    s.label_values = std::move(values);
    s.value = value;
    series.push_back(std::move(s));
  }
};

// Prometheus metric and label name rules (text format 0.0.4):
//   metric  [a-zA-Z_:][a-zA-Z0-9_:]*
//   label   [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved).
bool valid_metric_name(std::string_view name);
bool valid_label_name(std::string_view name);

// Throws std::invalid_argument naming the problem when the family's name,
// label names (including const labels; duplicates; "le" on a histogram)
// or a series' value count is wrong.
void validate_family(const MetricFamily& family);

}  // namespace hami::observability
