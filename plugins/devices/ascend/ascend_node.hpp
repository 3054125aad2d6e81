// Ascend node registration (HAMi GetNodeDevices, reference §1.3):
// `hami.io/node-register-<CW>` holds HAMi's JSON device array. Each device
// is reported with
//   mode        "hami-core" when the node runs soft split — its annotation
//               hami-vnpu-core is "true", or, without the annotation, the
//               entry's hamiVnpuCore — else "vnpu" (fit has no node view;
//               the host decodes again when the annotation changes);
//   attributes  its custominfo.NetworkID (ascend_attributes.hpp).
#ifndef HAMI_DEVICES_ASCEND_NODE_HPP
#define HAMI_DEVICES_ASCEND_NODE_HPP

#include <string>
#include <string_view>
#include <vector>

#include "ascend_config.hpp"
#include "kv_list.hpp"
#include "node_register.hpp"

namespace hami::devices::ascend {

// The mode every NPU of a node with these annotations is reported with.
std::string_view device_mode(const AscendConfig& config, const KvList& node_annotations) noexcept;

// Device i's attributes text, for each registered device.
std::vector<std::string> device_attributes(const RegisterDecoding& registration);

}  // namespace hami::devices::ascend

#endif  // HAMI_DEVICES_ASCEND_NODE_HPP
