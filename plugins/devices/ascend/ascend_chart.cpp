#include "ascend_chart.hpp"

#include <array>

namespace hami::devices::ascend {
namespace {

constexpr std::array<ChartTemplate, 4> k910A{
    {{"vir02", 2184, 2, 0}, {"vir04", 4369, 4, 0}, {"vir08", 8738, 8, 0}, {"vir16", 17476, 16, 0}}};
constexpr std::array<ChartTemplate, 3> k910B2{
    {{"vir03_1c_8g", 8192, 3, 1}, {"vir06_1c_16g", 16384, 6, 1}, {"vir12_3c_32g", 32768, 12, 3}}};
constexpr std::array<ChartTemplate, 2> k64G{
    {{"vir05_1c_16g", 16384, 5, 1}, {"vir10_3c_32g", 32768, 10, 3}}};
constexpr std::array<ChartTemplate, 2> k910B4{
    {{"vir05_1c_8g", 8192, 5, 1}, {"vir10_3c_16g", 16384, 10, 3}}};
constexpr std::array<ChartTemplate, 3> k310P{
    {{"vir01", 3072, 1, 1}, {"vir02", 6144, 2, 2}, {"vir04", 12288, 4, 4}}};

constexpr std::array<ChartEntry, 7> kEntries{{
    {"Ascend910A", "910A", 32768, 32768, 1, false, k910A},
    {"Ascend910B2", "910B2", 65536, 65536, 1, false, k910B2},
    {"Ascend910B3", "910B3", 65536, 65536, 1, false, k64G},
    {"Ascend910B4-1", "910B4-1", 65536, 65536, 1, false, k64G},
    {"Ascend910B4", "910B4", 32768, 32768, 1, false, k910B4},
    {"Ascend310P", "310P3", 21527, 24576, 1, false, k310P},
    {"Ascend910C", "Ascend910", 65536, 65536, 0, true, k64G},
}};

}  // namespace

std::span<const ChartEntry> chart_entries() noexcept {
  return kEntries;
}

const ChartEntry* chart_entry(std::string_view common_word) noexcept {
  for (const ChartEntry& e : kEntries) {
    if (e.common_word == common_word)
      return &e;
  }
  return nullptr;
}

}  // namespace hami::devices::ascend
