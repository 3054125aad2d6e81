// Fuzz target: any bytes as a kubeconfig. The only acceptable failure is an
// ApiConfigError; anything else (another exception, a crash, a sanitizer
// report) is a bug. Relative file references resolve inside a folder that
// does not exist, so the target reads nothing from disk for them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kube/kubeconfig.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hami::kube::parse_kubeconfig(text, "/nonexistent-hami-fuzz/kubeconfig");
  } catch (const hami::kube::ApiConfigError&) {
    // Expected for malformed input.
  }
  return 0;
}
