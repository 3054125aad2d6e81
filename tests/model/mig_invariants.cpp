// Invariant 5 (invariants.hpp): the MIG allocations of the live pods, read
// from hami.io/vgpu-mig-allocations and the nodes' registrations only.
#include <map>

#include "invariants.hpp"

namespace hami::model {

namespace {

struct Placed {
  std::string pod;
  uint32_t start = 0;
  uint32_t size = 0;
};

std::string placement_text(uint32_t start, uint32_t size) {
  return "{" + std::to_string(start) + "," + std::to_string(size) + "}";
}

std::string entries_text(const std::vector<MigEntry>& entries) {
  std::string out = "[";
  for (const MigEntry& m : entries) {
    out += (out.size() > 1 ? " " : "") + std::to_string(m.container) + "/" +
           std::to_string(m.device) + " " + m.gpu + " " + m.profile + " " +
           placement_text(m.start, m.size);
  }
  return out + "]";
}

std::string wanted_text(const std::vector<const DeviceEntry*>& entries) {
  std::string out = "[";
  for (const DeviceEntry* e : entries) {
    out += (out.size() > 1 ? " " : "") + std::to_string(e->container) + "/" +
           std::to_string(e->index) + " " + e->id;
  }
  return out + "]";
}

bool registered(const StoredMigProfile& profile, const MigEntry& m) {
  for (const StoredMigPlacement& p : profile.placements) {
    if (p.start == m.start && p.size == m.size)
      return true;
  }
  return false;
}

// Checks one pod's entries against its device entries; adds its
// placements on MIG-mode GPUs to `placed`.
void check_pod(const StoredState& stored, const StoredPod& pod, const std::string& node,
               const std::vector<DeviceEntry>& devices, const std::vector<MigEntry>& migs,
               std::map<std::string, std::vector<Placed>>& placed, std::vector<std::string>& out) {
  const std::string who = "mig: pod " + pod.name + " (" + pod.uid + ")";
  const auto mode = pod.annotation(kVgpuMode);
  std::vector<const DeviceEntry*> wanted;
  for (const DeviceEntry& e : devices) {
    const StoredDevice* d = stored.device(node, e.id);
    if (d == nullptr) {
      out.push_back(who + " is allocated " + e.id + ", not a device of " + node);
      continue;
    }
    if (mode && mode->find(d->mode) == std::string::npos)
      out.push_back(who + " asks for mode " + *mode + " but got " + e.id + " in mode " + d->mode);
    if (d->mig())
      wanted.push_back(&e);
  }
  if (wanted.size() != migs.size()) {
    out.push_back(who + " has MIG allocations " + entries_text(migs) + " for its MIG devices " +
                  wanted_text(wanted));
  }
  for (size_t i = 0; i < migs.size(); ++i) {
    const MigEntry& m = migs[i];
    const StoredDevice* d = stored.device(node, m.gpu);
    if (d == nullptr || !d->mig()) {
      out.push_back(who + " has a MIG allocation on " + m.gpu + ", not a MIG-mode GPU of " + node);
      continue;
    }
    placed[m.gpu].push_back({pod.name + " (" + pod.uid + ")", m.start, m.size});
    if (i < wanted.size()) {
      const DeviceEntry& e = *wanted[i];
      if (static_cast<size_t>(m.container) != e.container ||
          static_cast<size_t>(m.device) != e.index || m.gpu != e.id) {
        out.push_back(who + " MIG allocation " + std::to_string(i) + " is " + entries_text({m}) +
                      ", its device entry is " + wanted_text({&e}));
      }
    }
    const StoredMigProfile* profile = d->profile(m.profile);
    if (profile == nullptr) {
      out.push_back(who + " has profile " + m.profile + ", which " + m.gpu + " did not register");
      continue;
    }
    if (!registered(*profile, m)) {
      out.push_back(who + " has " + m.profile + " at " + placement_text(m.start, m.size) +
                    ", not a placement " + m.gpu + " registered for it");
    }
    if (i < wanted.size() &&
        (wanted[i]->memory != profile->memory || wanted[i]->cores != profile->cores)) {
      out.push_back(who + " device entry " + wanted_text({wanted[i]}) + " carries mem " +
                    std::to_string(wanted[i]->memory) + " cores " +
                    std::to_string(wanted[i]->cores) + ", profile " + m.profile + " has mem " +
                    std::to_string(profile->memory) + " cores " + std::to_string(profile->cores));
    }
  }
}

}  // namespace

void check_mig(const CheckInput& in, std::vector<std::string>& out) {
  const StoredState& stored = *in.stored;
  std::map<std::string, std::vector<Placed>> placed;  // gpuUUID → placements
  for (const StoredPod& pod : stored.pods) {
    if (pod.phase == "Succeeded" || pod.phase == "Failed")
      continue;
    const auto allocated = pod.annotation(kAllocated);
    const auto node = pod.annotation(kAssignedNode);
    if (!allocated || !node)
      continue;  // not charged: what it still carries does not count
    std::string error;
    const auto devices = parse_entries(*allocated, error);
    if (!devices)
      continue;  // check_capacity reports it
    std::vector<MigEntry> migs;
    if (const auto mig = pod.annotation(kMigAllocations)) {
      auto parsed = parse_mig_allocations(*mig, error);
      if (!parsed) {
        out.push_back("mig: pod " + pod.name + " (" + pod.uid + "): " + error);
        continue;
      }
      migs = std::move(*parsed);
    }
    check_pod(stored, pod, *node, *devices, migs, placed, out);
  }
  for (const auto& [gpu, list] : placed) {
    for (size_t i = 0; i < list.size(); ++i) {
      for (size_t j = i + 1; j < list.size(); ++j) {
        const Placed& a = list[i];
        const Placed& b = list[j];
        if (uint64_t{a.start} < uint64_t{b.start} + b.size &&
            uint64_t{b.start} < uint64_t{a.start} + a.size) {
          out.push_back("mig: on " + gpu + ", " + a.pod + " at " + placement_text(a.start, a.size) +
                        " overlaps " + b.pod + " at " + placement_text(b.start, b.size));
        }
      }
    }
  }
}

}  // namespace hami::model
