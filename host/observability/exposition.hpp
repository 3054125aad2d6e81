// The Prometheus text exposition format, version 0.0.4.
//
//   # HELP <name> <help, with \ and newline escaped>
//   # TYPE <name> counter|gauge|histogram
//   <name>{<label>="<value>",...} <value>
//
// Output is stable: families sorted by name, each series' labels sorted by
// name (a histogram's `le` last), series sorted by their label values.
// Label values escape backslash, double quote and newline; bytes that are
// not valid UTF-8 become U+FFFD (the format is UTF-8, and a pod name or a
// device type read from an annotation may be anything). Values are written
// as Go's strconv.FormatFloat(v, 'g', -1, 64) writes them, so the output
// matches HAMi's byte for byte ("3.145728e+09", "+Inf", "NaN").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "observability/metric_family.hpp"
#include "text/utf8.hpp"

namespace hami::observability {

inline constexpr std::string_view kExpositionContentType =
    "text/plain; version=0.0.4; charset=utf-8";

// Makes `families` safe to encode and returns one line per problem found:
// families that fail validate_family() are dropped, as are families whose
// name was already used (the first one wins; same-named families of the
// same type and labels are merged) or collides with a histogram's
// _bucket/_sum/_count series, and duplicate series (the first one wins).
// Label values and help texts are made valid UTF-8. Families without
// series are dropped silently. Sorts as described above.
std::vector<std::string> normalize(std::vector<MetricFamily>& families);

// Encodes normalized families (see normalize) as text.
std::string encode_text(const std::vector<MetricFamily>& families);

// normalize + encode_text.
std::string encode_text_normalized(std::vector<MetricFamily> families,
                                   std::vector<std::string>* problems = nullptr);

// A sample value as Go's strconv.FormatFloat(v, 'g', -1, 64), with the
// exposition spellings of infinities ("+Inf", "-Inf") and "NaN".
std::string format_value(double value);

// UTF-8 validation and repair are text/utf8.hpp's, the ones every output
// uses.
using text::is_valid_utf8;
using text::to_valid_utf8;

// Appends `value` escaped for a label value (between the quotes).
void append_label_value(std::string& out, std::string_view value);
// Appends `help` escaped for a HELP line.
void append_help(std::string& out, std::string_view help);

}  // namespace hami::observability
