#include "raw_device_plugin.hpp"

#include <dlfcn.h>

#include <ctime>

namespace hami::testing {
namespace {

void log_nothing(void*, int32_t, hami_str) {}
int64_t wall_clock(void*) {
  return static_cast<int64_t>(std::time(nullptr));
}

const hami_host_api kApi{sizeof(hami_host_api), &log_nothing, &wall_clock};

}  // namespace

const hami_host_info& RawLibrary::host_info() {
  static const hami_host_info info{
      sizeof(hami_host_info), HAMI_ABI_MAJOR, HAMI_ABI_MINOR, &kApi, nullptr, hami_str{"test", 4}};
  return info;
}

RawLibrary::RawLibrary(const std::filesystem::path& file) {
  handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr)
    throw std::runtime_error(std::string("dlopen: ") + dlerror());
  entry_ = reinterpret_cast<hami_plugin_negotiate_t*>(dlsym(handle_, HAMI_PLUGIN_ENTRY_POINT));
  if (entry_ == nullptr)
    throw std::runtime_error("no hami_plugin_negotiate in " + file.string());
}

RawLibrary::~RawLibrary() {
  if (handle_ != nullptr)
    dlclose(handle_);
}

hami_plugin_info RawLibrary::negotiate(std::uint16_t abi_major, std::uint16_t abi_minor) const {
  hami_host_info in = host_info();
  in.abi_major = abi_major;
  in.abi_minor = abi_minor;
  hami_plugin_info out{};
  out.struct_size = sizeof out;
  char buf[512] = {};
  const hami_status s = entry_(&in, &out, hami_errbuf{buf, sizeof buf});
  if (s != HAMI_OK)
    throw RawCallError(s, buf);
  return out;
}

RawInstance::RawInstance(const RawLibrary& library, std::string_view config_json) {
  const hami_plugin_info info = library.negotiate();
  vtable_ = static_cast<const hami_device_vtable*>(info.vtable);
  char buf[1024] = {};
  const hami_status s =
      vtable_->create(&RawLibrary::host_info(), hami_str{config_json.data(), config_json.size()},
                      &instance_, hami_errbuf{buf, sizeof buf});
  if (s != HAMI_OK)
    throw RawCallError(s, buf);
}

RawInstance::~RawInstance() {
  if (vtable_ != nullptr)
    vtable_->destroy(instance_);
}

}  // namespace hami::testing
