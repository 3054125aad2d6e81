// The reference model: what every device must be charged, computed only
// from the live pods' annotations as the backend stores them (HAMi §4.2
// grammar, NVIDIA: "<uuid>,NVIDIA,<mem>,<cores>" devices joined by ':',
// one ';'-terminated segment per container), plus what the run allows on
// top of it (see Allowances).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "stored_state.hpp"

namespace hami::model {

inline constexpr std::string_view kAllocated = "hami.io/vgpu-devices-allocated";
inline constexpr std::string_view kAssignedNode = "hami.io/vgpu-node";
inline constexpr std::string_view kBindPhase = "hami.io/bind-phase";
inline constexpr std::string_view kLock = "hami.io/mutex.lock";

struct DeviceTotals {
  int64_t memory = 0;
  int64_t cores = 0;
  int32_t slots = 0;
  friend bool operator==(const DeviceTotals&, const DeviceTotals&) = default;
};

using DeviceMap = std::map<std::string, DeviceTotals>;  // device id → totals

// One pod's charge by its annotations (no init containers in this model:
// per device, the sums over containers and one slot per container).
struct ExpectedCharge {
  std::string uid;
  std::string ns;
  std::string name;
  std::string node;  // hami.io/vgpu-node
  DeviceMap devices;
};

// Parses a pod-device string; nullopt (and `error`) when malformed.
std::optional<DeviceMap> parse_allocation(std::string_view value, std::string& error);

// The charges of the live pods (phase neither Succeeded nor Failed) that
// carry both hami.io/vgpu-devices-allocated and hami.io/vgpu-node, by uid.
// Malformed annotations are reported in `errors`.
std::map<std::string, ExpectedCharge> expected_charges(const StoredState& stored,
                                                       std::vector<std::string>& errors);

// Per device id, the totals of `charges`.
DeviceMap device_totals(const std::map<std::string, ExpectedCharge>& charges);

// What the run allows beyond the exact model (the header of model_test.cpp
// says when each entry is made and dropped).
struct Allowances {
  // Pods whose last allocation write (or its removal) failed with an
  // unknown outcome: the scheduler may keep a reservation for them that
  // covers at least what their annotations say.
  std::set<std::string> unconfirmed;
  // Node lock values left by an operation in which a node write failed
  // unconfirmed, or whose holder the run deleted, completed or replaced:
  // allowed until they expire.
  std::set<std::string> exempt_locks;
};

}  // namespace hami::model
