// SchedulerApp: the hami-scheduler command line on Poco's ServerApplication.
//
//   hami-scheduler [--config FILE] [--listen ADDR:PORT] [--plugin-dir DIR]
//                  [--cluster SOURCE] [-v] [HAMi flags]
//       serve until SIGTERM/SIGINT, then drain and exit 0; --listen is the
//       webhook listener's address (config `listen`); one "listening" line
//       per listener names it (listener=webhook, listener=extender, or
//       listener=webhook+extender for one shared socket). Without --config
//       the built-in defaults apply (config/builtin_config.hpp). HAMi
//       v2.10's scheduler flags are read first (app/hami_flags.hpp) and
//       applied over the file or the defaults; this host's options win
//       over them; a HAMi flag without effect here is logged as a warning
//       ("HAMi flag ignored", flag=..., reason=...)
//   --check-config   validate the config, load every plugin, build the TLS
//                    contexts, print a summary naming both listeners; exit 0
//                    when all is well, 1 not
//   --list-plugins   load the plugins and print name, kind, plugin version
//                    and ABI version; exit 0/1
//   --version, --help
// Errors, command-line mistakes included, are logged (stderr, one line
// each) and give exit status 1.
#pragma once

#include <Poco/Util/ServerApplication.h>

#include <optional>
#include <string>
#include <vector>

#include "config/config_loader.hpp"
#include "config/hami_settings.hpp"
#include "config/host_config.hpp"
#include "log/logger.hpp"

namespace hami::app {

class SchedulerApp : public Poco::Util::ServerApplication {
 public:
  SchedulerApp();

  // Parses the command line and runs the selected mode; the exit status.
  int run_command_line(int argc, char** argv);

 protected:
  void defineOptions(Poco::Util::OptionSet& options) override;
  void handleOption(const std::string& name, const std::string& value) override;
  int main(const std::vector<std::string>& args) override;

 private:
  enum class Mode { serve, check_config, list_plugins, version, help, help_hami };

  // Loads the file, applies overrides and the log settings; nullopt after
  // logging the error.
  std::optional<config::HostConfig> load_config();
  int check_config(const config::HostConfig& config);
  int list_plugins(const config::HostConfig& config);
  int serve(const config::HostConfig& config);
  void print_help() const;

  Mode mode_ = Mode::serve;
  std::optional<std::string> config_file_;
  config::Overrides overrides_;
  config::HamiSettings hami_;
  std::vector<config::FlagNotice> notices_;  // HAMi flags accepted without effect
  bool verbose_ = false;
  log::Logger logger_;
};

}  // namespace hami::app
