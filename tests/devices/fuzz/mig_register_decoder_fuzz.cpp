// Fuzzes the MIG side of the NVIDIA registration: the migProfiles decoding
// of the register annotation and nvidia.so's attributes text. Any input must
// decode or fail with InvalidInput; a decoded registration's profiles must
// survive attributes encoding and decoding unchanged, and attributes text
// that decodes must re-encode to the same bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "errors.hpp"
#include "mig_attributes.hpp"
#include "node_register.hpp"

namespace {

using hami::devices::RegisteredMigPlacement;
using hami::devices::RegisteredMigProfile;
using hami::devices::nvidia::MigProfile;

bool same(const RegisteredMigProfile& a, const MigProfile& b) {
  if (a.name != b.name || a.memory_mb != b.memory_mb || a.core != b.core ||
      a.slice_count != b.slice_count || a.placements.size() != b.placements.size())
    return false;
  for (std::size_t i = 0; i < a.placements.size(); ++i) {
    if (a.placements[i].start != b.placements[i].start ||
        a.placements[i].size != b.placements[i].size)
      return false;
  }
  return true;
}

std::vector<RegisteredMigProfile> registered(const std::vector<MigProfile>& profiles) {
  std::vector<RegisteredMigProfile> out;
  for (const MigProfile& p : profiles) {
    RegisteredMigProfile r;
    r.name = p.name;
    r.memory_mb = p.memory_mb;
    r.core = p.core;
    r.slice_count = p.slice_count;
    for (const auto& pl : p.placements)
      r.placements.push_back(RegisteredMigPlacement{pl.start, pl.size});
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace nv = hami::devices::nvidia;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto decoded = hami::devices::decode_register(text, hami::devices::RegisterForm::Json);
    for (const auto& d : decoded.devices()) {
      const std::string attributes = nv::encode_mig_attributes(d.mig_profiles);
      const std::vector<MigProfile> back = nv::decode_mig_attributes(attributes);
      if (back.size() != d.mig_profiles.size())
        __builtin_trap();
      for (std::size_t i = 0; i < back.size(); ++i) {
        if (!same(d.mig_profiles[i], back[i]))
          __builtin_trap();
      }
    }
  } catch (const hami::devices::InvalidInput&) {
  }
  try {
    const std::vector<MigProfile> profiles = nv::decode_mig_attributes(text);
    if (nv::encode_mig_attributes(registered(profiles)) != text)
      __builtin_trap();
  } catch (const hami::devices::InvalidInput&) {
  }
  return 0;
}
