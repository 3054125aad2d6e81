// Fuzz target: any bytes as the host config file. The only acceptable
// failure is a ConfigError; anything else (another exception, a crash, a
// sanitizer report) is a bug. Referenced files resolve inside a folder that
// does not exist, so the target reads nothing from disk.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/config_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hami::config::parse_config(text, "/nonexistent-hami-fuzz/config.yaml");
  } catch (const hami::config::ConfigError&) {
    // Expected for malformed input.
  }
  return 0;
}
