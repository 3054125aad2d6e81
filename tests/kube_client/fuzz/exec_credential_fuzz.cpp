// Fuzz target: any bytes as a credential plugin's stdout, read as both API
// versions. The only acceptable failure is an ExecCredentialError; anything
// else (another exception, a crash, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/exec_credential.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::string_view version : {hami::kube::kExecApiV1, hami::kube::kExecApiV1beta1}) {
    try {
      hami::kube::parse_exec_credential(text, version);
    } catch (const hami::kube::ExecCredentialError&) {
      // Expected for malformed input.
    }
  }
  return 0;
}
