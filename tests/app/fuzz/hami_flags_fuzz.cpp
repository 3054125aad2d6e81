// Fuzz target: any bytes as a command line (arguments separated by NUL):
// HAMi's flags read out of it, then applied onto the built-in defaults. The
// only acceptable failures are a CommandLineError and a ConfigError;
// anything else (another exception, a crash, a sanitizer report) is a bug.
// The file flags are dropped before applying, so nothing is read from disk.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/hami_flags.hpp"
#include "config/builtin_config.hpp"
#include "config/config_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> argv{"hami-scheduler"};
  std::string arg;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      argv.push_back(arg);
      arg.clear();
    } else {
      arg += static_cast<char>(data[i]);
    }
  }
  argv.push_back(arg);
  try {
    hami::app::TranslatedCommandLine t = hami::app::translate_command_line(argv);
    t.hami.cert_file.reset();
    t.hami.key_file.reset();
    t.hami.device_config_file.reset();
    hami::config::HostConfig config = hami::config::builtin_config(std::nullopt);
    (void)hami::config::apply_hami_settings(config, t.hami);
  } catch (const hami::app::CommandLineError&) {
    // Expected for values HAMi would refuse.
  } catch (const hami::config::ConfigError&) {
    // Expected for values this host refuses.
  }
  return 0;
}
