// GET /allocations: what the scheduler has allocated where, as JSON — every
// known node's devices with their usage, and every pod the ledger charges
// (reservations in flight included) with its allocation annotations as the
// cluster state holds them. Read-only; for operators and the demo.
//
//   {"nodes":[{"name","devices":[{"id","type","vendor","healthy","slots",
//      "usedSlots","memoryMiB","usedMemoryMiB","cores","usedCores"}]}],
//    "pods":[{"namespace","name","uid","node","reservation",
//      "annotations":{...hami.io/* allocation keys...}}]}
// Nodes and pods are sorted by name.
#pragma once

#include <string>

#include "scheduling/scheduler.hpp"

namespace hami::extender {

std::string allocations_report(const scheduling::Scheduler& scheduler);

}  // namespace hami::extender
