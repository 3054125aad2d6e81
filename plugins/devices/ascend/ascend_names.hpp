// Annotation keys and values of HAMi's Ascend rules that do not depend on
// the vendor word.
#ifndef HAMI_DEVICES_ASCEND_NAMES_HPP
#define HAMI_DEVICES_ASCEND_NAMES_HPP

#include <string_view>

namespace hami::devices::ascend {

// Pod: `huawei.com/vnpu-mode: hami-core` selects soft split.
inline constexpr std::string_view kVnpuModeAnnotation = "huawei.com/vnpu-mode";
inline constexpr std::string_view kHamiCore = "hami-core";
// Node: `hami-vnpu-core: "true"` — the node's plugin runs soft split.
inline constexpr std::string_view kNodeVnpuCoreAnnotation = "hami-vnpu-core";
// hami_device.mode of an NPU on a node without soft split (hard split only);
// soft-split nodes report kHamiCore. decode_node folds the node annotation
// into every device's mode, because fit has no node view.
inline constexpr std::string_view kHardSplitMode = "vnpu";
// Pod annotation of the allocation time, Unix seconds (no domain prefix).
inline constexpr std::string_view kPredicateTimeAnnotation = "predicate-time";
// Env the node side reads; see ascend_admission.hpp.
inline constexpr std::string_view kVisibleDevicesEnv = "ASCEND_VISIBLE_DEVICES";
// Resource names of the chart's entries all start with this.
inline constexpr std::string_view kChartResourcePrefix = "huawei.com/Ascend";
inline constexpr std::string_view kCordonAnnotation = "hami.io/device-cordon";

}  // namespace hami::devices::ascend

#endif  // HAMI_DEVICES_ASCEND_NAMES_HPP
