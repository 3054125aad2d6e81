// What the vendor plugins bind the same way: a DevicePlugin base with the
// standard HAMi device-string allocation codec (`id,type,mem,cores:` per
// device, `;` per container), and the small pieces of the other overrides
// that do not depend on the vendor.
#ifndef HAMI_DEVICES_COMMON_STANDARD_PLUGIN_HPP
#define HAMI_DEVICES_COMMON_STANDARD_PLUGIN_HPP

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "binding.hpp"
#include "hami/device.hpp"
#include "kv_list.hpp"
#include "node_register.hpp"
#include "share_fit.hpp"

namespace hami::devices {

// hami::DevicePlugin whose allocation annotation is the standard HAMi
// device string (allocation_codec.hpp); the vendor class provides the rest.
class StandardCodecPlugin : public DevicePlugin {
 public:
  void encode_allocation(std::span<const hami_container_alloc> containers,
                         const hami_sink& out) override {
    translate({}, [&] { write_allocation(containers, out); });
  }

  void decode_allocation(std::string_view value, const hami_allocation_sink& out) override {
    translate({}, [&] { emit_allocation(value, out); });
  }
};

// One container's request as the host reads it.
inline hami_device_request device_request(std::int32_t count, std::int64_t memory_mib,
                                          std::int32_t memory_percent, std::int32_t cores) {
  hami_device_request out{};
  out.struct_size = static_cast<std::uint32_t>(sizeof out);
  out.count = count;
  out.memory_mib = memory_mib;
  out.memory_percent = memory_percent;
  out.cores = cores;
  return out;
}

// The standard share-fit (share_fit.hpp) against the host's fit output.
inline void run_share_fit(const ShareFitRules& rules, const hami_fit_input& in,
                          hami_fit_output& out) {
  run_fit(out, [&](std::span<hami_fit_pick> picks, std::string& reason) {
    return share_fit(rules, in, picks, reason);
  });
}

// The registration `key` of a HAMi vendor that requires one with at least
// one device (HAMi's "annos not found" / "no gpu found on node"), decoded
// with `decode(text)` and handed to `use(const RegisterDecoding&)` (its
// devices view into the decoding, which therefore stays where it is).
template <class Decode, class Use>
void with_registration(const KvList& annotations, std::string_view key, Decode&& decode,
                       Use&& use) {
  const auto reg = annotations.find(key);
  if (!reg)
    throw Error(HAMI_NOT_FOUND, "annos not found " + std::string(key));
  const RegisterDecoding decoded = translate({}, [&] { return decode(*reg); });
  if (decoded.devices().empty())
    throw Error(HAMI_INVALID_ARGUMENT, "no gpu found on node");
  use(decoded);
}

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_STANDARD_PLUGIN_HPP
