#include "scheduling/pod_charge.hpp"

#include <algorithm>

namespace hami::scheduling {

std::vector<VendorTotals> PodCharge::totals(size_t vendor_count) const {
  std::vector<VendorTotals> out(vendor_count);
  for (const DeviceCharge& d : devices) {
    if (d.vendor >= vendor_count)
      continue;
    out[d.vendor].memory_mib += d.memory_mib;
    out[d.vendor].cores += d.cores;
  }
  return out;
}

std::vector<DeviceCharge> larger_of(const std::vector<DeviceCharge>& a,
                                    const std::vector<DeviceCharge>& b) {
  std::vector<DeviceCharge> out = a;
  for (const DeviceCharge& d : b) {
    const auto same = std::find_if(out.begin(), out.end(), [&](const DeviceCharge& o) {
      return o.vendor == d.vendor && o.device_id == d.device_id;
    });
    if (same == out.end()) {
      out.push_back(d);
      continue;
    }
    same->slots = std::max(same->slots, d.slots);
    same->memory_mib = std::max(same->memory_mib, d.memory_mib);
    same->cores = std::max(same->cores, d.cores);
    // Both allocations' holds count: their union, each distinct hold once
    // more than either has it.
    for (const std::string& h : d.holds) {
      const auto mine = std::count(same->holds.begin(), same->holds.end(), h);
      const auto theirs = std::count(d.holds.begin(), d.holds.end(), h);
      if (mine < theirs)
        same->holds.push_back(h);
    }
  }
  return out;
}

namespace {

struct Accumulator {
  std::string id;
  int64_t init_memory = 0;  // max over init containers
  int64_t init_cores = 0;
  bool init_used = false;
  int64_t app_memory = 0;  // sum over app containers
  int64_t app_cores = 0;
  int32_t app_uses = 0;
  std::vector<std::string> holds;
};

}  // namespace

std::vector<DeviceCharge> collapse(const std::vector<VendorAllocation>& allocations,
                                   size_t init_count, bool shrunk) {
  std::vector<DeviceCharge> out;
  for (const VendorAllocation& alloc : allocations) {
    std::vector<Accumulator> acc;  // few devices per pod: a scan beats a map
    const auto slot = [&](std::string_view id) -> Accumulator& {
      for (Accumulator& a : acc) {
        if (a.id == id)
          return a;
      }
      acc.push_back(Accumulator{std::string(id), 0, 0, false, 0, 0, 0, {}});
      return acc.back();
    };
    for (size_t c = 0; c < alloc.containers.size(); ++c) {
      const bool init = c < init_count;
      // One container may name a device more than once (MIG instances):
      // its own use is the sum, before the max over init containers; in an
      // app container every entry is a slot, as in HAMi.
      struct Own {
        std::string_view id;
        int64_t memory = 0;
        int64_t cores = 0;
        int32_t entries = 0;
      };
      std::vector<Own> own;
      for (const host::AllocDevice& d : alloc.containers[c]) {
        if (alloc.holds)
          slot(d.id).holds.push_back(d.data);
        auto it = std::find_if(own.begin(), own.end(), [&](const Own& e) { return e.id == d.id; });
        if (it == own.end())
          it = own.insert(own.end(), Own{d.id});
        it->memory += d.memory_mib;
        it->cores += d.cores;
        it->entries += 1;
      }
      for (const Own& use : own) {
        Accumulator& a = slot(use.id);
        if (init) {
          a.init_used = true;
          a.init_memory = std::max(a.init_memory, use.memory);
          a.init_cores = std::max(a.init_cores, use.cores);
        } else {
          a.app_memory += use.memory;
          a.app_cores += use.cores;
          a.app_uses += use.entries;
        }
      }
    }
    for (const Accumulator& a : acc) {
      DeviceCharge charge;
      charge.vendor = alloc.vendor;
      charge.device_id = a.id;
      if (shrunk && a.app_uses == 0) {
        for (const std::string& h : a.holds) {
          if (!h.empty())
            charge.holds.push_back(h);
        }
        if (!charge.holds.empty())
          out.push_back(std::move(charge));
        continue;
      }
      charge.holds = a.holds;
      if (shrunk) {
        charge.memory_mib = a.app_memory;
        charge.cores = a.app_cores;
        charge.slots = a.app_uses;
      } else {
        charge.memory_mib = std::max(a.init_memory, a.app_memory);
        charge.cores = std::max(a.init_cores, a.app_cores);
        charge.slots = std::max({a.init_used ? 1 : 0, a.app_uses, 1});
      }
      out.push_back(std::move(charge));
    }
  }
  return out;
}

}  // namespace hami::scheduling
