// Warnings for resource names that look like a device plugin's but that no
// plugin reads: a name under the domain ("nvidia.com/") of a resource some
// device plugin describes (count, memory, memory percentage, cores,
// priority), that none of them describes, e.g. `nvidia.com/gpumemory` for
// `nvidia.com/gpumem`. The pod is admitted as it is (such a name may be
// another component's, e.g. the vendor's own device plugin); the reply's
// `warnings` say it, which kubectl prints:
//   container <c>: <name> is not a resource of this scheduler's device
//   plugins; the <domain> resources they read: <known, in plugin order>
// One warning per container and name (limits and requests together), in
// container order (init containers first), then the name's first place.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hami/objects.h"
#include "plugins/device_plugin_handle.hpp"

namespace hami::admission {

std::vector<std::string> unknown_resource_warnings(
    std::span<const host::DevicePluginHandle> devices, const hami_pod_view& pod);

}  // namespace hami::admission
