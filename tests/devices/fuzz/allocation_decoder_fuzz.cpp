// Fuzzes the pod-device string decoder and checks that what it accepts
// re-encodes to a value that decodes to the same segments.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "allocation_codec.hpp"
#include "errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hami::devices;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::vector<AllocatedDevice>> segments;
  try {
    decode_allocation(
        text, [&] { segments.emplace_back(); },
        [&](const AllocatedDevice& d) { segments.back().push_back(d); });
  } catch (const InvalidInput&) {
    return 0;
  }
  std::vector<std::vector<hami_alloc_device>> devs;
  for (const auto& seg : segments) {
    auto& out = devs.emplace_back();
    for (const auto& d : seg) {
      hami_alloc_device a{};
      a.struct_size = sizeof a;
      a.id = hami_str{d.id.data(), d.id.size()};
      a.type = hami_str{d.type.data(), d.type.size()};
      a.memory_mib = d.memory_mib;
      a.cores = d.cores;
      out.push_back(a);
    }
  }
  std::vector<hami_container_alloc> containers;
  for (const auto& d : devs)
    containers.push_back(hami_container_alloc{d.data(), d.size()});
  std::string encoded;
  encode_allocation(containers, encoded);  // decoded ids/types never hold separators
  std::size_t count = 0;
  decode_allocation(
      encoded, [&] { ++count; }, [](const AllocatedDevice&) {});
  if (count != segments.size())
    std::abort();
  return 0;
}
