#include "binding.hpp"

#include "hami/quantity.hpp"
#include "handshake.hpp"

namespace hami::devices {

std::int64_t resource_count(const KvList& list, std::string_view resource) {
  const auto text = list.find(resource);
  if (!text)
    return 0;
  const auto q = Quantity::parse(*text);
  const auto v = q ? q->ceil_int64() : std::nullopt;
  return v.value_or(0);
}

hami_health_result handshake_health(const hami_node_view& node, std::int64_t now_unix,
                                    const HandshakeKeys& keys, const hami_annotation_sink& writes) {
  const KvList annotations(node.annotations, node.annotations_len);
  const std::int64_t allocatable =
      resource_count(KvList(node.allocatable, node.allocatable_len), keys.count_resource);
  hami_health_result out{};
  out.struct_size = static_cast<std::uint32_t>(sizeof out);
  if (!annotations.contains(keys.register_key) && allocatable <= 0) {
    out.healthy = 1u;
    out.needs_update = 1u;
    return out;
  }
  const HandshakeResult r =
      check_handshake(annotations.find(keys.handshake), now_unix, allocatable > 0);
  if (r.stamp)
    set_annotation(writes, keys.handshake, *r.stamp);
  out.healthy = r.healthy ? 1u : 0u;
  out.needs_update = r.needs_update ? 1u : 0u;
  return out;
}

}  // namespace hami::devices
