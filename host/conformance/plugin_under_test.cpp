#include "conformance/plugin_under_test.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>

namespace hami::conformance {
namespace {

void discard_log(void*, int32_t, hami_str) {}
int64_t fixed_clock(void*) {
  return 1'767'225'600;
}

constexpr hami_host_api kApi{static_cast<uint32_t>(sizeof(hami_host_api)), &discard_log,
                             &fixed_clock};
constexpr char kHostVersion[] = "hami-plugin-check";

std::string dl_error() {
  const char* message = ::dlerror();
  return message == nullptr ? std::string("unknown dlopen error") : std::string(message);
}

}  // namespace

PluginUnderTest::PluginUnderTest(std::filesystem::path file) : file_(std::move(file)) {
  handle_ = ::dlopen(file_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    throw CannotLoad(file_.string() + ": cannot be opened as a shared library: " + dl_error());
  }
  // dlsym returns an object pointer; the entry point is a function.
  void* symbol = ::dlsym(handle_, HAMI_PLUGIN_ENTRY_POINT);
  if (symbol == nullptr) {
    ::dlclose(handle_);
    throw CannotLoad(file_.string() + ": exports no " HAMI_PLUGIN_ENTRY_POINT
                                      " (not a hami-scheduler plugin, or built without "
                                      "the SDK's export macro)");
  }
  entry_ = reinterpret_cast<hami_plugin_negotiate_t*>(symbol);
  info_.struct_size = static_cast<uint32_t>(sizeof info_);
  std::array<char, 1024> err{};
  const hami_status status = negotiate(info_, hami_errbuf{err.data(), err.size()});
  if (status != HAMI_OK || info_.vtable == nullptr) {
    const std::string message(err.data(), std::find(err.begin(), err.end(), '\0'));
    ::dlclose(handle_);
    throw CannotLoad(file_.string() + ": refused to negotiate with a " +
                     std::to_string(HAMI_ABI_MAJOR) + "." + std::to_string(HAMI_ABI_MINOR) +
                     " host (" + (status == HAMI_OK ? "no vtable" : status_name(status)) +
                     (message.empty() ? std::string() : ": " + message) + ")");
  }
}

PluginUnderTest::~PluginUnderTest() {
  // Libraries stay mapped: a plugin may have started threads or registered
  // atexit handlers that must not outlive their code (HAMI_FLAG_KEEP_LOADED).
}

hami_status PluginUnderTest::negotiate(hami_plugin_info& out, hami_errbuf err,
                                       uint16_t host_major) const {
  hami_host_info host = host_info();
  host.abi_major = host_major;
  return entry_(&host, &out, err);
}

const hami_host_info& PluginUnderTest::host_info() noexcept {
  static const hami_host_info host{static_cast<uint32_t>(sizeof(hami_host_info)),
                                   HAMI_ABI_MAJOR,
                                   HAMI_ABI_MINOR,
                                   &kApi,
                                   nullptr,
                                   hami_str{kHostVersion, sizeof kHostVersion - 1}};
  return host;
}

std::string kind_word(uint32_t kind) {
  switch (kind) {
    case HAMI_KIND_DEVICE:
      return "device";
    case HAMI_KIND_ADMISSION:
      return "admission";
    case HAMI_KIND_SCHEDULING:
      return "scheduling";
    default:
      return "kind " + std::to_string(kind);
  }
}

std::string status_name(hami_status status) {
  const char* name = nullptr;
  switch (status) {
    case HAMI_OK:
      name = "HAMI_OK";
      break;
    case HAMI_CANCELLED:
      name = "HAMI_CANCELLED";
      break;
    case HAMI_UNKNOWN:
      name = "HAMI_UNKNOWN";
      break;
    case HAMI_INVALID_ARGUMENT:
      name = "HAMI_INVALID_ARGUMENT";
      break;
    case HAMI_NOT_FOUND:
      name = "HAMI_NOT_FOUND";
      break;
    case HAMI_ALREADY_EXISTS:
      name = "HAMI_ALREADY_EXISTS";
      break;
    case HAMI_PERMISSION_DENIED:
      name = "HAMI_PERMISSION_DENIED";
      break;
    case HAMI_RESOURCE_EXHAUSTED:
      name = "HAMI_RESOURCE_EXHAUSTED";
      break;
    case HAMI_FAILED_PRECONDITION:
      name = "HAMI_FAILED_PRECONDITION";
      break;
    case HAMI_OUT_OF_RANGE:
      name = "HAMI_OUT_OF_RANGE";
      break;
    case HAMI_UNIMPLEMENTED:
      name = "HAMI_UNIMPLEMENTED";
      break;
    case HAMI_INTERNAL:
      name = "HAMI_INTERNAL";
      break;
    case HAMI_UNAVAILABLE:
      name = "HAMI_UNAVAILABLE";
      break;
    default:
      return "status " + std::to_string(status);
  }
  return std::string(name) + " (" + std::to_string(status) + ")";
}

std::string printable(std::string_view text, std::size_t limit) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (const char c : text.substr(0, limit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && c != '\\') {
      out += c;
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  out += "'";
  if (text.size() > limit) {
    out += "… (" + std::to_string(text.size()) + " bytes)";
  }
  return out;
}

}  // namespace hami::conformance
