// A node's MLUs from its capacity (HAMi GetNodeDevices): there is no
// registration annotation. capacity[vcore] counts 100 per MLU and
// capacity[vmemory] all MLU memory in 256 MiB units, split evenly:
//   MLU i, for i × 100 < vcore: id "<node>-cambricon-mlu-<i>", index i,
//   memory vmemory × 256 × 100 / vcore MiB (count 100, cores 100, type MLU
//   and healthy are the plugin's constants).
// HAMi's "device not found <vcore name>" covers a vcore capacity that is
// missing, 0 or not an integer. Here a node whose capacity names none of
// the three MLU resources, or vcore 0 (kubelet zeroes a resource whose
// device plugin went away), has no MLUs (an empty list: the node is not
// this vendor's, and the host forgets devices it had, HAMi X11); anything
// else that does not decode is malformed (InvalidInput).
#ifndef HAMI_DEVICES_CAMBRICON_NODE_HPP
#define HAMI_DEVICES_CAMBRICON_NODE_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cambricon_config.hpp"
#include "kv_list.hpp"

namespace hami::devices::cambricon {

struct Mlu {
  std::string id;
  std::uint32_t index = 0;
  std::int64_t memory_mib = 0;
};

// Beyond this many MLUs (vcore above 100 × it) a capacity is taken as
// malformed rather than listed device by device.
inline constexpr std::int64_t kMaxMlus = 4096;

// "device not found <vcore name>", HAMi's text for a node without MLUs.
std::string device_not_found(const CambriconConfig& config);

// The node's MLUs; empty when it has none (see above). Throws InvalidInput
// when the capacity is malformed: vcore missing beside another MLU
// resource, negative, not an integer or above 100 × kMaxMlus; vmemory
// negative, not an integer, or more than INT32_MAX MiB per MLU.
std::vector<Mlu> decode_capacity(const CambriconConfig& config, std::string_view node_name,
                                 const KvList& capacity);

}  // namespace hami::devices::cambricon

#endif  // HAMI_DEVICES_CAMBRICON_NODE_HPP
