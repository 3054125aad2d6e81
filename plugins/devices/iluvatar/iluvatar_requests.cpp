#include "iluvatar_requests.hpp"

#include <limits>
#include <optional>
#include <string>

#include "errors.hpp"
#include "hami/quantity.hpp"

namespace hami::devices::iluvatar {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

std::optional<std::int64_t> integer(std::string_view text) {
  const auto q = Quantity::parse(text);
  return q ? q->as_int64() : std::nullopt;
}

InvalidInput unusable(const std::string& resource, std::string_view value, const ContainerRef& c,
                      std::string_view rule) {
  return InvalidInput("invalid " + resource + " value " + std::string(value) + " in container " +
                      std::string(c.name) + ": " + std::string(rule));
}

}  // namespace

Request container_request(const IluvatarConfig& config, const ContainerRef& c) {
  Request r;
  const auto count_text = c.resource(config.count_resource);
  if (!count_text)
    return r;
  const auto count = integer(*count_text);
  if (count && *count == 0)
    return r;
  if (!count || *count < 0 || *count > kInt32Max) {
    throw unusable(config.count_resource, *count_text, c,
                   "must be an integer between 1 and 2147483647");
  }
  std::int64_t memory = 0;
  if (const auto text = c.resource(config.memory_resource)) {
    const auto v = integer(*text);
    if (!v || *v < 0 || *v > kInt32Max / kMemoryFactor) {
      throw unusable(config.memory_resource, *text, c,
                     "must be an integer number of 256 MiB units between 0 and 8388607");
    }
    memory = *v * kMemoryFactor;
  }
  std::int32_t cores = 0;
  if (const auto text = c.resource(config.cores_resource)) {
    const auto v = integer(*text);
    if (!v || *v < 0 || *v > kInt32Max) {
      throw unusable(config.cores_resource, *text, c,
                     "must be an integer percentage between 0 and 2147483647");
    }
    cores = static_cast<std::int32_t>(*v);
  }
  r.count = static_cast<std::int32_t>(*count);
  r.memory_mib = memory;
  r.memory_percent = memory == 0 ? 100 : 0;
  r.cores = cores;
  return r;
}

}  // namespace hami::devices::iluvatar
