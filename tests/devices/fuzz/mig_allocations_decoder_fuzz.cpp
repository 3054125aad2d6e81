// Fuzzes the MIG allocations annotation (hami.io/vgpu-mig-allocations) and
// nvidia.so's reservation text (pick data). Any input must decode or fail
// with InvalidInput; decoded entries must re-encode (Go's json.Marshal) to
// text that decodes to the same entries; reservation text that decodes must
// re-encode to the same bytes; attaching the input to a pod's allocation
// must never fail.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "errors.hpp"
#include "mig_allocations.hpp"
#include "mig_pod_allocation.hpp"
#include "mig_reservation.hpp"

namespace {

namespace nv = hami::devices::nvidia;

bool same(const nv::MigAllocation& a, const nv::MigAllocation& b) {
  return a.container_index == b.container_index && a.device_index == b.device_index &&
         a.gpu_uuid == b.gpu_uuid && a.profile == b.profile && a.placement == b.placement &&
         a.mig_uuid == b.mig_uuid && a.gpu_instance_id == b.gpu_instance_id &&
         a.compute_instance_id == b.compute_instance_id;
}

void round_trip(std::string_view text, nv::MigAllocationCheck check) {
  std::vector<nv::MigAllocation> entries;
  try {
    entries = nv::decode_mig_allocations(text, check);
  } catch (const hami::devices::InvalidInput&) {
    return;
  }
  const std::string encoded = nv::encode_mig_allocations(entries);
  const std::vector<nv::MigAllocation> again = nv::decode_mig_allocations(encoded, check);
  if (again.size() != entries.size())
    __builtin_trap();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!same(entries[i], again[i]))
      __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  round_trip(text, nv::MigAllocationCheck::Strict);
  round_trip(text, nv::MigAllocationCheck::ShapeOnly);
  const nv::PlacedAllocation placed = nv::decode_placed_allocation(
      "GPU-a,NVIDIA,5120,14:GPU-b,NVIDIA,10240,28:;GPU-a,NVIDIA,5120,14:;", text);
  for (const auto& container : placed) {
    for (const nv::PlacedEntry& e : container) {
      if (!nv::decode_reservations(e.data))
        __builtin_trap();  // attached data is always reservation text
    }
  }
  if (const auto reservations = nv::decode_reservations(text)) {
    if (nv::encode_reservations(*reservations) != text)
      __builtin_trap();
  }
  return 0;
}
