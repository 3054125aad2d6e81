// Ascend admission (HAMi MutateAdmission, reference §1.2), one container:
//   1. The count is read from the limits. Without it the container does not
//      use this chip; with overwriteEnv it gets ASCEND_VISIBLE_DEVICES="",
//      see X13 below.
//   2. Ascend910C with superPod: a count of 1 becomes 2 (limits, and the
//      requests when they name the count); another odd count is refused:
//      "Ascend910C device request must be 1 or 2*n, got <n>".
//   3. Soft split: the pod annotation huawei.com/vnpu-mode is "hami-core".
//   4. Hard split refuses a core value above 0 (limits, else requests):
//      "<coreName> is only supported in hami-core (soft split) mode".
//   5. Memory from the limits: soft split keeps it (rounded up); hard split
//      rounds it up to the smallest template, else the whole card when it
//      is at most memoryCapacity, else "<memName> <value> is invalid".
//   6. A count above 1 (before step 2) in hard split with a memory other
//      than the whole card: "vNPU not supported for multiple devices".
//   7. limits and requests of the memory resource = the rounded memory
//      (memoryAllocatable when none was given).
//   8. The configured runtime class (the host sets it only on pods without).
// Every refusal is InvalidInput (the webhook denies with its message).
//
// X13 / §1.9a fixed: HAMi adds an empty ASCEND_VISIBLE_DEVICES for every
// entry whose count a container lacks, so a container using one chip also
// got empty entries from the other six, which hide the NPUs the node plugin
// assigns. Here an entry adds it only to a container whose limits name no
// Ascend resource at all (none starting with huawei.com/Ascend, nor this
// entry's own count) and that does not define the variable itself. Every
// entry of such a container asks for the same name and value; the host sets
// env by name, so the pod gets one entry.
//
// X9 / §1.9b kept: step 6 looks at the count before the 910C rewrite, so a
// one-card slice on a superPod 910C becomes two NPUs with that slice each,
// which HAMi's own examples/ascend/job-910C.yaml relies on.
#ifndef HAMI_DEVICES_ASCEND_ADMISSION_HPP
#define HAMI_DEVICES_ASCEND_ADMISSION_HPP

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ascend_config.hpp"
#include "container.hpp"
#include "kv_list.hpp"

namespace hami::devices::ascend {

struct AscendMutation {
  bool uses_device = false;
  std::vector<std::pair<std::string, std::string>> limits;    // resource → quantity
  std::vector<std::pair<std::string, std::string>> requests;  // resource → quantity
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<std::string> runtime_class;
};

// `pod_annotations`: the pod's annotations (huawei.com/vnpu-mode);
// `limit_names`: the names in the container's limits (for X13).
AscendMutation mutate_container(const AscendConfig& config, const ContainerRef& container,
                                const KvList& pod_annotations,
                                std::span<const std::string_view> limit_names);

// Whether the pod asks for soft split (huawei.com/vnpu-mode: hami-core).
bool soft_split(const KvList& pod_annotations) noexcept;

}  // namespace hami::devices::ascend

#endif  // HAMI_DEVICES_ASCEND_ADMISSION_HPP
