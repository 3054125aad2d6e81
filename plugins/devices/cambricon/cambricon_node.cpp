#include "cambricon_node.hpp"

#include <limits>
#include <string>

#include "cambricon_names.hpp"
#include "errors.hpp"
#include "request_values.hpp"

namespace hami::devices::cambricon {
namespace {

constexpr std::int64_t kCoresPerMlu = 100;

InvalidInput bad_memory(const CambriconConfig& config, std::string_view text,
                        std::string_view rule) {
  return InvalidInput("invalid " + config.memory_resource + " capacity " + std::string(text) +
                      ": " + std::string(rule));
}

}  // namespace

std::string device_not_found(const CambriconConfig& config) {
  return "device not found " + config.cores_resource;
}

std::vector<Mlu> decode_capacity(const CambriconConfig& config, std::string_view node_name,
                                 const KvList& capacity) {
  const auto vcore = capacity.find(config.cores_resource);
  const auto vmemory = capacity.find(config.memory_resource);
  if (!vcore) {
    if (vmemory || capacity.contains(config.count_resource))
      throw InvalidInput(device_not_found(config));
    return {};
  }
  const auto cards = quantity_integer(*vcore);
  if (!cards || *cards < 0)
    throw InvalidInput(device_not_found(config));
  if (*cards == 0)
    return {};
  if (*cards > kCoresPerMlu * kMaxMlus) {
    throw InvalidInput("invalid " + config.cores_resource + " capacity " + std::string(*vcore) +
                       ": more than " + std::to_string(kMaxMlus) + " MLUs");
  }
  std::int64_t memory_units = 0;
  if (vmemory) {
    const auto v = quantity_integer(*vmemory);
    if (!v || *v < 0)
      throw bad_memory(config, *vmemory, "must be a whole number of 256 MiB units");
    memory_units = *v;
  }
  constexpr std::int64_t kScale = kMemoryFactor * kCoresPerMlu;
  if (memory_units > std::numeric_limits<std::int64_t>::max() / kScale)
    throw bad_memory(config, *vmemory, "more than 2147483647 MiB per MLU");
  const std::int64_t per_mlu = memory_units * kScale / *cards;
  if (per_mlu > kInt32Max)
    throw bad_memory(config, *vmemory, "more than 2147483647 MiB per MLU");

  std::vector<Mlu> mlus;
  const std::string prefix = std::string(node_name) + "-cambricon-mlu-";
  for (std::int64_t i = 0; i * kCoresPerMlu < *cards; ++i) {
    mlus.push_back(Mlu{prefix + std::to_string(i), static_cast<std::uint32_t>(i), per_mlu});
  }
  return mlus;
}

}  // namespace hami::devices::cambricon
