#include "ascend_node.hpp"

#include "ascend_attributes.hpp"
#include "ascend_names.hpp"

namespace hami::devices::ascend {

std::string_view device_mode(const AscendConfig& config, const KvList& node_annotations) noexcept {
  const auto annotation = node_annotations.find(kNodeVnpuCoreAnnotation);
  const bool soft = annotation ? *annotation == "true" : config.hami_vnpu_core;
  return soft ? kHamiCore : kHardSplitMode;
}

std::vector<std::string> device_attributes(const RegisterDecoding& registration) {
  std::vector<std::string> out;
  out.reserve(registration.devices().size());
  for (const RegisteredDevice& d : registration.devices()) {
    const RegisteredCustomValue* v = d.custom("NetworkID");
    out.push_back(encode_attributes(v != nullptr && v->kind == RegisteredCustomValue::Kind::Number
                                        ? std::optional<double>(v->number)
                                        : std::nullopt));
  }
  return out;
}

}  // namespace hami::devices::ascend
