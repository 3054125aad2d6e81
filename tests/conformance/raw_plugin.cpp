#include "raw_plugin.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace hami::test {
namespace {

void discard_log(void*, int32_t, hami_str) {}
int64_t fixed_clock(void*) {
  return 1'700'000'000;
}

constexpr hami_host_api kApi{static_cast<uint32_t>(sizeof(hami_host_api)), &discard_log,
                             &fixed_clock};

}  // namespace

RawPlugin::RawPlugin(const std::filesystem::path& file) {
  boost::dll::fs::error_code ec;
  library_.load(boost::dll::fs::path(file.native()), ec,
                boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  if (ec) {
    throw std::runtime_error(file.string() + ": cannot load: " + ec.message());
  }
  if (!library_.has(HAMI_PLUGIN_ENTRY_POINT)) {
    throw std::runtime_error(file.string() + ": no " HAMI_PLUGIN_ENTRY_POINT);
  }
  entry_ = &library_.get<hami_plugin_negotiate_t>(HAMI_PLUGIN_ENTRY_POINT);
  info_.struct_size = static_cast<uint32_t>(sizeof info_);
  std::array<char, 512> err{};
  status_ = negotiate(info_, hami_errbuf{err.data(), err.size()});
  message_.assign(err.data(), std::find(err.begin(), err.end(), '\0'));
}

hami_status RawPlugin::negotiate(hami_plugin_info& out, hami_errbuf err,
                                 uint16_t host_major) const {
  hami_host_info host = host_info();
  host.abi_major = host_major;
  return entry_(&host, &out, err);
}

hami_host_info RawPlugin::host_info() {
  static constexpr char kVersion[] = "test";
  hami_host_info host{};
  host.struct_size = static_cast<uint32_t>(sizeof host);
  host.abi_major = HAMI_ABI_MAJOR;
  host.abi_minor = HAMI_ABI_MINOR;
  host.host = &kApi;
  host.host_ctx = nullptr;
  host.host_version = hami_str{kVersion, sizeof kVersion - 1};
  return host;
}

}  // namespace hami::test
