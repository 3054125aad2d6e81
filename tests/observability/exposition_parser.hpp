// A strict parser of the Prometheus text exposition format 0.0.4, for
// tests: every line must be a HELP, TYPE or sample line; names, label
// names, escapes and values must be well-formed; a family's lines must be
// contiguous with TYPE before its samples; series must be unique; counters
// non-negative; histograms complete (increasing le, non-decreasing
// cumulative counts, a final +Inf bucket equal to _count, and a _sum).
// Anything else throws ParseError naming the line.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hami::testing {

class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParsedSample {
  std::string name;                           // as written (with _bucket/_sum/_count)
  std::map<std::string, std::string> labels;  // unescaped
  std::vector<std::string> label_order;       // names as they appeared
  double value = 0;
};

struct ParsedFamily {
  std::string name;
  std::string type;  // "counter", "gauge", "histogram", "summary", "untyped"
  std::string help;  // unescaped
  bool has_help = false;
  std::vector<ParsedSample> samples;
};

struct ParsedExposition {
  std::vector<ParsedFamily> families;  // in output order

  const ParsedFamily* family(std::string_view name) const;
  // The samples of `name` (a family or a sample name) whose labels include
  // all of `match`.
  std::vector<const ParsedSample*> find(std::string_view name,
                                        const std::map<std::string, std::string>& match = {}) const;
  // The value of the single sample matching; throws when there is not
  // exactly one.
  double value(std::string_view name, const std::map<std::string, std::string>& match = {}) const;
};

ParsedExposition parse_exposition(std::string_view text);

}  // namespace hami::testing
