// Fuzzes cambricon.so's capacity decoding (HAMi GetNodeDevices): the input's
// lines are the vcore, vmemory and count capacity values (a missing line is
// a missing resource). Any input must decode or fail with InvalidInput,
// never crash, loop or allocate without bound, and a decoded inventory
// keeps its invariants: at most kMaxMlus MLUs numbered 0.. in order, ids
// "<node>-cambricon-mlu-<i>", memory within 0..INT32_MAX MiB.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cambricon_config.hpp"
#include "cambricon_node.hpp"
#include "errors.hpp"
#include "kv_list.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const hami::devices::cambricon::CambriconConfig config;
  const std::string_view names[] = {config.cores_resource, config.memory_resource,
                                    config.count_resource};
  std::vector<hami_kv> capacity;
  for (const std::string_view name : names) {
    if (rest.empty())
      break;
    const std::size_t eol = rest.find('\n');
    const std::string_view value = rest.substr(0, eol);
    capacity.push_back(hami_kv{{name.data(), name.size()}, {value.data(), value.size()}});
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
  }
  try {
    const auto mlus = hami::devices::cambricon::decode_capacity(
        config, "n", hami::devices::KvList(capacity.data(), capacity.size()));
    if (static_cast<std::int64_t>(mlus.size()) > hami::devices::cambricon::kMaxMlus)
      std::abort();
    for (std::size_t i = 0; i < mlus.size(); ++i) {
      const auto& m = mlus[i];
      if (m.index != i || m.id != "n-cambricon-mlu-" + std::to_string(i) || m.memory_mib < 0 ||
          m.memory_mib > INT32_MAX || m.memory_mib != mlus[0].memory_mib)
        std::abort();
    }
  } catch (const hami::devices::InvalidInput&) {
  }
  return 0;
}
