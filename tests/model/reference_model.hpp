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
inline constexpr std::string_view kMigAllocations = "hami.io/vgpu-mig-allocations";
inline constexpr std::string_view kVgpuMode = "nvidia.com/vgpu-mode";

struct DeviceTotals {
  int64_t memory = 0;
  int64_t cores = 0;
  int32_t slots = 0;
  // The MIG reservations held on the device, as pick data writes them
  // ("<start>,<size>,<len>:<profile>", docs/mig.md), sorted.
  std::vector<std::string> holds;
  friend bool operator==(const DeviceTotals&, const DeviceTotals&) = default;
};

// Adds `t` to `sum` (the holds stay sorted).
void add(DeviceTotals& sum, const DeviceTotals& t);

using DeviceMap = std::map<std::string, DeviceTotals>;  // device id → totals

// One device entry of a pod-device string, in order.
struct DeviceEntry {
  size_t container = 0;  // the segment
  size_t index = 0;      // the position in the segment
  std::string id;
  int64_t memory = 0;
  int64_t cores = 0;
};

// Parses a pod-device string into its entries; nullopt (and `error`) when
// malformed.
std::optional<std::vector<DeviceEntry>> parse_entries(std::string_view value, std::string& error);

// One entry of hami.io/vgpu-mig-allocations (HAMi §4.3).
struct MigEntry {
  int64_t container = 0;
  int64_t device = 0;
  std::string gpu;
  std::string profile;
  uint32_t start = 0;
  uint32_t size = 0;
};

// Parses the MIG allocations annotation: a JSON list of objects with
// containerIndex, deviceIndex, gpuUUID, profile and placement {start,
// size} (size > 0); nullopt (and `error`) otherwise.
std::optional<std::vector<MigEntry>> parse_mig_allocations(std::string_view value,
                                                           std::string& error);

// The reservation text of `e` as the scheduler holds it: "6,1,6:1g.5gb".
std::string reservation_text(const MigEntry& e);

// One pod's charge by its annotations (no init containers in this model:
// per device, the sums over containers and one slot per container that
// lists it — one container may list a MIG GPU more than once, and takes one
// slot of it all the same, as the ledger counts (pod_charge.hpp) — and the
// reservations its MIG allocations name for it).
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
