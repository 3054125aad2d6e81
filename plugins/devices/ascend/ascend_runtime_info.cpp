#include "ascend_runtime_info.hpp"

#include "errors.hpp"
#include "hami/go_text.hpp"
#include "hami/plugin.hpp"

namespace hami::devices::ascend {

std::optional<std::string> runtime_info(const AscendConfig& config,
                                        std::span<const hami_placed_container> containers,
                                        bool soft_split) {
  std::string out = "[";
  bool any = false;
  for (const hami_placed_container& c : containers) {
    if (c.devices_len > 0 && c.devices == nullptr)
      throw InvalidInput("annotate_allocation: a container's devices are null");
    for (std::size_t i = 0; i < c.devices_len; ++i) {
      const hami_placed_device& d = c.devices[i];
      if (any)
        out += ',';
      any = true;
      out += '{';
      bool first = true;
      const auto member = [&](std::string_view key) {
        if (!first)
          out += ',';
        first = false;
        out += '"';
        out += key;
        out += "\":";
      };
      if (d.id.len > 0) {
        member("UUID");
        append_go_json_string(out, to_sv(d.id));
      }
      if (!soft_split) {
        if (const VnpuTemplate* t = template_for(config, d.memory_mib); t && !t->name.empty()) {
          member("temp");
          append_go_json_string(out, t->name);
        }
      }
      if (d.memory_mib != 0) {
        member("memory");
        out += std::to_string(d.memory_mib);
      }
      if (d.cores != 0) {
        member("core");
        out += std::to_string(d.cores);
      }
      out += '}';
    }
  }
  if (!any)
    return std::nullopt;
  out += ']';
  return out;
}

}  // namespace hami::devices::ascend
