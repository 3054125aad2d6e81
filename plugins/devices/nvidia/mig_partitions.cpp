#include "mig_partitions.hpp"

#include <string>

#include "hami/device.hpp"
#include "mig_allocations.hpp"

namespace hami::devices::nvidia {

void emit_mig_partitions(std::string_view mig, const hami_partition_sink& out) {
  for (const MigAllocation& a : decode_mig_allocations(mig, MigAllocationCheck::ShapeOnly)) {
    if (!a.runtime_ready())
      continue;
    const std::string gi = std::to_string(*a.gpu_instance_id);
    const std::string ci = std::to_string(*a.compute_instance_id);
    const std::string start = std::to_string(a.placement.start);
    const std::string size = std::to_string(a.placement.size);
    const std::array<hami_str, 6> values{to_str(a.mig_uuid), to_str(a.profile), to_str(gi),
                                         to_str(ci),         to_str(start),     to_str(size)};
    emit_partition(out, kMigInstanceFamily, a.gpu_uuid, values);
    const std::string migname = a.profile + "-" + gi;
    const std::array<hami_str, 1> legacy{to_str(migname)};
    emit_partition(out, kLegacyMigFamily, a.gpu_uuid, legacy);
  }
}

}  // namespace hami::devices::nvidia
