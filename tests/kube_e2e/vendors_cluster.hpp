// config/vendors-cluster.yaml for the end-to-end tests of the further
// vendors: the snapshot as JSON, its pods by name, and the device plugins
// that serve it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "config/host_config.hpp"

namespace hami::e2e {

// The snapshot's objects, {"items":[...]}.
nlohmann::json load_vendors_cluster();

// The pod of the snapshot named `name`; null when there is none.
nlohmann::json snapshot_pod(const nlohmann::json& snapshot, const std::string& name);

// Hygon, Iluvatar BI-V150, Biren, Cambricon, Vastai and Ascend 910B3, as
// the snapshot's nodes register them.
void use_vendor_plugins(config::HostConfig& c);

}  // namespace hami::e2e
