#include "fit_input.hpp"

#include <string>

#include "errors.hpp"
#include "kv_list.hpp"

namespace hami::devices {

std::size_t requested_picks(const hami_fit_input& in, std::span<const hami_fit_pick> picks) {
  if (in.request == nullptr)
    throw InvalidInput("fit: request is null");
  if (in.devices_len > 0 && in.devices == nullptr)
    throw InvalidInput("fit: devices is null");
  if (in.request->count <= 0)
    return 0;
  const auto need = static_cast<std::size_t>(in.request->count);
  if (picks.size() < need) {
    throw InvalidInput("fit: picks_cap " + std::to_string(picks.size()) +
                       " is smaller than the request count " + std::to_string(need));
  }
  return need;
}

DeviceSelectors read_device_selectors(const hami_pod_view* pod, const SelectorKeys& keys) {
  DeviceSelectors s;
  if (pod == nullptr)
    return s;
  const KvList annotations(pod->annotations, pod->annotations_len);
  s.type = Selector{annotations.find(keys.use_type), annotations.find(keys.nouse_type)};
  s.uuid = Selector{annotations.find(keys.use_uuid), annotations.find(keys.nouse_uuid)};
  return s;
}

}  // namespace hami::devices
