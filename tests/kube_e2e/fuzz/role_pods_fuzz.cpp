// Fuzz target: any bytes as the PodList reply the role labeler reads. It
// must answer nullopt or a list; anything else (an exception, a crash, a
// sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/leader_role_labels.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto pods = hami::kube::parse_role_pods(text, hami::kube::kDefaultRoleLabel);
  if (pods) {
    for (const auto& pod : *pods) {
      if (pod.name.size() > size)
        __builtin_trap();
    }
  }
  return 0;
}
