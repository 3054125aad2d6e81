// PlacedView: a PodAllocation laid out as the ABI's hami_placed_container
// array (ABI 1.1), borrowing the allocation's strings. Valid while the
// allocation it was made from is alive and unchanged.
#pragma once

#include <vector>

#include "hami/device.h"
#include "plugins/device_plugin_handle.hpp"

namespace hami::host {

class PlacedView {
 public:
  explicit PlacedView(const PodAllocation& allocation)
      : devices_(allocation.size()), containers_(allocation.size()) {
    for (size_t c = 0; c < allocation.size(); ++c) {
      for (const AllocDevice& d : allocation[c]) {
        devices_[c].push_back(hami_placed_device{{d.id.data(), d.id.size()},
                                                 {d.type.data(), d.type.size()},
                                                 d.memory_mib,
                                                 d.cores,
                                                 d.index,
                                                 {d.data.data(), d.data.size()}});
      }
      containers_[c] = {devices_[c].data(), devices_[c].size()};
    }
  }
  PlacedView(const PlacedView&) = delete;
  PlacedView& operator=(const PlacedView&) = delete;

  const std::vector<hami_placed_container>& containers() const { return containers_; }

 private:
  std::vector<std::vector<hami_placed_device>> devices_;
  std::vector<hami_placed_container> containers_;
};

}  // namespace hami::host
