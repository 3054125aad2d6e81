// The five invariants checked after every operation (model_test.cpp's
// header states them and what is allowed). Each violation is one line of
// text naming the pod, device or node and both sides of the comparison.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference_model.hpp"
#include "scheduling/usage_ledger.hpp"
#include "stored_state.hpp"

namespace hami::model {

struct CheckInput {
  const StoredState* stored = nullptr;
  const scheduling::LedgerState* ledger = nullptr;
  const Allowances* allowances = nullptr;
  int64_t now = 0;            // Unix seconds of the run's clock
  int64_t lock_expiry = 300;  // seconds
};

// 1. No device is over capacity by the live pods' allocation annotations.
void check_capacity(const CheckInput& in, std::vector<std::string>& out);
// 2. The ledger's per-device use and per-pod charges equal the model, but
//    for the allowed unconfirmed reservations.
void check_ledger(const CheckInput& in, std::vector<std::string>& out);
// 3. No bound pod asking for a GPU lacks its allocation annotations, or
//    names another node in them.
void check_bound_pods(const CheckInput& in, std::vector<std::string>& out);
// 4. No unexpired node lock is held for a pod that is not binding (a live
//    pod whose bind-phase is "allocating"), but the exempt ones.
void check_locks(const CheckInput& in, std::vector<std::string>& out);
// 5. MIG (mig_invariants.cpp): every live allocated pod's device entries on
//    MIG-mode GPUs have, in order, one hami.io/vgpu-mig-allocations entry
//    each (same segment, position and gpuUUID; a profile and placement the
//    GPU registered; the entry's memory and cores the profile's), and none
//    else; its devices' modes are allowed by its nvidia.com/vgpu-mode; no
//    two placements on a GPU overlap.
void check_mig(const CheckInput& in, std::vector<std::string>& out);

std::vector<std::string> check_all(const CheckInput& in);

}  // namespace hami::model
