// A synthetic GPU cluster for the benchmarks and the performance guard:
// nodes `gpu-node-<n>` with eight NVIDIA A100 40 GB cards each (10 slots,
// 100 cores, NUMA 0 for cards 0-3 and 1 for 4-7), registered through
// hami.io/node-nvidia-register with a handshake that does not expire, and
// running pods holding one card each. Everything is Kubernetes JSON text,
// the same for the same arguments.
#pragma once

#include <string>

namespace hami::bench {

inline constexpr int kGpusPerNode = 8;

// "GPU-<node, 8 hex>-0000-4000-8000-<gpu, 12 hex>".
std::string gpu_id(int node, int gpu);

// "gpu-node-<n>".
std::string gpu_node_name(int node);

// The Node object of gpu_node_name(n), with nvidia.com/gpu capacity and
// allocatable of 80.
std::string gpu_node_json(int node);

// A running pod `ml/run-<i>` (uid pod-uid-<i>) bound to gpu_node_name(node)
// by hami-scheduler, holding `memory_mib` and `cores` of card `gpu` (bind
// phase success).
std::string running_pod_json(int i, int node, int gpu, int memory_mib, int cores);

// A pending pod `ml/<name>` (uid uid-<name>) of hami-scheduler asking for
// `gpus` cards of `memory_mib` and `cores` each.
std::string pending_pod_json(const std::string& name, int gpus, int memory_mib, int cores);

}  // namespace hami::bench
