// How many workload pods simulate can hold: each pod placed is stored in
// the cluster copy (its JSON, its model, its charge), about 16 KiB plus a
// few times its JSON. A workload that would need more memory than is
// available is refused before the first pod, naming the bound, instead of
// running for minutes into the out-of-memory killer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "ops/workload_parser.hpp"

namespace hami::ops {

// The memory one workload pod is taken to cost while simulated.
uint64_t simulated_pod_bytes(const WorkloadPod& pod);

// MemAvailable of /proc/meminfo text, in bytes; nullopt when absent.
std::optional<uint64_t> mem_available(std::string_view meminfo);

// The memory this process may still take: MemAvailable, and under a cgroup
// v2 limit (memory.max) no more than the limit less memory.current;
// nullopt when neither can be read.
std::optional<uint64_t> available_memory();

// Throws OpsError when the pods need more than `available` bytes:
// "the workload's 600000 pods need about 9.2 GiB to simulate, and 2.1 GiB
// of memory is available: enough for about 137000 pods; simulate a part of
// the workload, or free memory".
void check_workload_memory(std::span<const WorkloadPod> pods, uint64_t available);

}  // namespace hami::ops
