// The cluster of the lock-aware filter tests: gpu-a and gpu-b, one 8000 MiB
// NVIDIA card each, with a 4000 MiB pod running on gpu-b, so binpack
// prefers gpu-b and gpu-a is the other node that fits.
#pragma once

#include <string>
#include <vector>

#include "scheduling_env.hpp"

namespace hami::testing {

inline const std::vector<std::string> kTwoNodeNames = {"gpu-a", "gpu-b"};

inline std::string two_node_cluster_yaml() {
  return "kind: List\nitems:\n" + nvidia_node("gpu-a", 1, 8000) + nvidia_node("gpu-b", 1, 8000) +
         R"(- kind: Pod
  metadata:
    name: busy
    namespace: ml
    uid: uid-busy
    annotations:
      hami.io/vgpu-node: gpu-b
      hami.io/bind-phase: success
      hami.io/vgpu-devices-allocated: "GPU-gpu-b-0,NVIDIA,4000,0:;"
  spec:
    nodeName: gpu-b
    containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]
  status: {phase: Running}
)";
}

}  // namespace hami::testing
