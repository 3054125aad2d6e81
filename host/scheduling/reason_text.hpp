// HAMi's fit reason text, read back: "<n>/<m> <Code>" entries joined with
// ", " (common.GenReason), as filter's events, explain and simulate count
// them. Entries of another shape are skipped.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hami::scheduling {

struct ReasonCount {
  std::string code;
  size_t count = 0;  // n of "<n>/<m>"
};

// The entries of `reason`, in text order.
std::vector<ReasonCount> reason_counts(std::string_view reason);

// Their codes only (HAMi's common.ParseReason).
std::vector<std::string> reason_codes(std::string_view reason);

}  // namespace hami::scheduling
