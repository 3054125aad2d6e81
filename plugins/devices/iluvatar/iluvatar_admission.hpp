// Iluvatar admission (HAMi MutateAdmission). A container uses the chip when
// its limits name the count resource. Then:
//   - a count above 1 sets limits[<cores>] = count × 100, replacing the
//     user's value (whole cards: the node-side plugin and the kubelet's
//     accounting of the vCore resource rely on it, so it is kept, §7.9a);
//   - env SOL_CONTINER_NAME=<container name> is added when the container
//     has a name and does not define it (HAMi's spelling, kept on purpose).
// Requests are never touched.
#ifndef HAMI_DEVICES_ILUVATAR_ADMISSION_HPP
#define HAMI_DEVICES_ILUVATAR_ADMISSION_HPP

#include "container.hpp"
#include "iluvatar_config.hpp"

namespace hami::devices::iluvatar {

inline constexpr std::string_view kContainerNameEnv = "SOL_CONTINER_NAME";

ContainerMutation mutate_container(const IluvatarConfig& config, const ContainerRef& container);

}  // namespace hami::devices::iluvatar

#endif  // HAMI_DEVICES_ILUVATAR_ADMISSION_HPP
