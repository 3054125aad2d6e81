// The seven `vnpus.configs` entries of HAMi v2.10's chart
// (charts/hami/templates/scheduler/device-configmap.yaml): the defaults a
// plugin entry takes for keys it leaves out.
#ifndef HAMI_DEVICES_ASCEND_CHART_HPP
#define HAMI_DEVICES_ASCEND_CHART_HPP

#include <cstdint>
#include <span>
#include <string_view>

namespace hami::devices::ascend {

struct ChartTemplate {
  std::string_view name;
  std::int64_t memory_mib;
  std::int64_t ai_core;
  std::int64_t ai_cpu;
};

struct ChartEntry {
  std::string_view common_word;
  std::string_view chip_name;
  std::int64_t memory_allocatable;
  std::int64_t memory_capacity;
  std::int32_t memory_factor;  // 0 where the chart leaves it out (910C)
  bool super_pod;
  std::span<const ChartTemplate> templates;
};

// The chart's entries, in its order (Ascend910A first).
std::span<const ChartEntry> chart_entries() noexcept;

// The entry of `common_word`, or nullptr.
const ChartEntry* chart_entry(std::string_view common_word) noexcept;

}  // namespace hami::devices::ascend

#endif  // HAMI_DEVICES_ASCEND_CHART_HPP
