#include "scheduling/scoring_weights.hpp"

#include <charconv>
#include <vector>

#include "hami/go_text.hpp"

namespace hami::scheduling {

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n\v\f");
  if (first == std::string_view::npos)
    return {};
  const auto last = s.find_last_not_of(" \t\r\n\v\f");
  return s.substr(first, last - first + 1);
}

// strconv.ParseInt(s, 10, 64): optional sign, decimal digits, fits int64.
std::optional<int64_t> parse_int64(std::string_view s) {
  if (s.empty())
    return std::nullopt;
  std::string_view digits = s;
  if (digits.front() == '+')
    digits.remove_prefix(1);
  if (digits.empty())
    return std::nullopt;
  int64_t v = 0;
  const auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (res.ec != std::errc() || res.ptr != digits.data() + digits.size())
    return std::nullopt;
  return v;
}

}  // namespace

std::variant<ScoringWeights, std::string> parse_scoring_weights(std::string_view value) {
  const std::string prefix = "invalid " + std::string(kDeviceScoringWeightsAnnotation) +
                             " annotation " + go_quote(value) + ": ";
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = value.find(',', start);
    parts.push_back(
        value.substr(start, comma == std::string_view::npos ? value.npos : comma - start));
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  if (parts.size() != 3)
    return prefix + "expected slot, core, and memory weights";

  ScoringWeights w{0, 0, 0};
  bool seen_slot = false, seen_core = false, seen_memory = false;
  for (const std::string_view raw : parts) {
    const std::string_view part = trim(raw);
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos)
      return prefix + "expected key=value entries";
    const std::string_view key = trim(part.substr(0, eq));
    bool* seen = key == "slot"     ? &seen_slot
                 : key == "core"   ? &seen_core
                 : key == "memory" ? &seen_memory
                                   : nullptr;
    if (seen != nullptr && *seen)
      return prefix + "duplicate " + go_quote(key) + " weight";
    const auto weight = parse_int64(trim(part.substr(eq + 1)));
    if (!weight)
      return prefix + go_quote(key) + " weight must be an integer";
    if (*weight < 0)
      return prefix + go_quote(key) + " weight must not be negative";
    if (seen == nullptr)
      return prefix + "unknown weight " + go_quote(key);
    *seen = true;
    (key == "slot" ? w.slot : key == "core" ? w.core : w.memory) = *weight;
  }
  if (!seen_slot)
    return prefix + "missing \"slot\" weight";
  if (!seen_core)
    return prefix + "missing \"core\" weight";
  if (!seen_memory)
    return prefix + "missing \"memory\" weight";
  if (w.slot == 0 && w.core == 0 && w.memory == 0) {
    return prefix + "at least one weight must be positive";
  }
  return w;
}

double device_score(const ScoringWeights& w, const ScoreRequest& request, int32_t used,
                    int32_t count, int64_t used_cores, int32_t total_cores, int64_t used_memory,
                    int64_t total_memory) {
  if (count == 0 || total_cores == 0 || total_memory == 0)
    return 0;
  // The ABI's request carries memory in MiB, or 0 and a percentage.
  int64_t memory = request.memory_mib;
  if (memory == 0 && request.memory_percent > 0 && request.memory_percent <= 100) {
    memory = total_memory * request.memory_percent / 100;
  }
  const double slot_term = static_cast<double>(request.slots + used) / static_cast<double>(count);
  const double core_term =
      static_cast<double>(request.cores + used_cores) / static_cast<double>(total_cores);
  const double memory_term =
      static_cast<double>(memory + used_memory) / static_cast<double>(total_memory);
  return 10.0 * (static_cast<double>(w.slot) * slot_term + static_cast<double>(w.core) * core_term +
                 static_cast<double>(w.memory) * memory_term);
}

}  // namespace hami::scheduling
