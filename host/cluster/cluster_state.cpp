#include "cluster/cluster_state.hpp"

namespace hami::cluster {

std::optional<std::string_view> PodRecord::annotation(std::string_view key) const {
  if (!model)
    return std::nullopt;
  const hami_pod_view& view = model->view();
  for (size_t i = 0; i < view.annotations_len; ++i) {
    const hami_kv& kv = view.annotations[i];
    if (std::string_view(kv.key.ptr, kv.key.len) == key) {
      return std::string_view(kv.value.ptr, kv.value.len);
    }
  }
  return std::nullopt;
}

}  // namespace hami::cluster
