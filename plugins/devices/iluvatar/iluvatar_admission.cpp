#include "iluvatar_admission.hpp"

#include <limits>
#include <string>

#include "hami/quantity.hpp"

namespace hami::devices::iluvatar {

ContainerMutation mutate_container(const IluvatarConfig& config, const ContainerRef& c) {
  ContainerMutation m;
  const auto count_text = c.limits.find(config.count_resource);
  m.uses_device = count_text.has_value();
  if (!m.uses_device)
    return m;
  // Go's Quantity.Value(): rounded up to an integer.
  const auto q = Quantity::parse(*count_text);
  const auto count = q ? q->ceil_int64() : std::nullopt;
  if (count && *count > 1 && *count <= std::numeric_limits<std::int64_t>::max() / 100)
    m.limits.emplace_back(config.cores_resource, std::to_string(*count * 100));
  if (!c.name.empty())
    m.add_env(c, std::string(kContainerNameEnv), std::string(c.name));
  return m;
}

}  // namespace hami::devices::iluvatar
