// Reading HAMi's scheduler command line (v2.10, reference hami-v2.10 §1.2,
// and the flags its main branch added since: cmd/scheduler/main.go, the
// klog and vendor flags; the commits read: hami_flags.cpp) out of argv before
// Poco's OptionSet parses what is left, this host's own options.
//
// Go's flag syntax is accepted for HAMi's flags: one or two dashes,
// `--flag=value` or `--flag value`; a boolean flag alone means true and
// takes its value only after '=' (`--leader-elect`, `--leader-elect=false`,
// values of strconv.ParseBool); durations in Go's syntax ("5m", "28s",
// "1h30m"). The last of a repeated flag wins, as in Go.
//
// Every HAMi flag is accepted:
//  - those with a meaning here fill config::HamiSettings (their mapping:
//    config/hami_settings.hpp);
//  - the others (--profiling, --debug, --node-label-selector,
//    --device-plugin-namespace, klog's
//    output flags, the vendor flags of vendors without a plugin here)
//    become notices naming the flag and why; they never stop the host.
// What is not a HAMi flag is handed to Poco unchanged, except that this
// host's own long options are also taken with one dash (`-config=FILE`
// becomes `--config=FILE`). klog's `-v=N`, `--v=N` and `-v N` (N a
// number) are HAMi's verbosity; `-v` alone stays this host's -v (debug).
// HAMi's `version` subcommand, as the first argument, is --version.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "config/hami_settings.hpp"

namespace hami::app {

// A HAMi flag whose value HAMi would refuse too; the message starts with
// the flag, e.g. `--node-lock-timeout: expected a Go duration (e.g. 5m,
// 28s, 1h30m), got "5 minutes"`.
class CommandLineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TranslatedCommandLine {
  // argv[0] and the arguments for Poco: this host's options and anything
  // not recognised (Poco reports unknown options).
  std::vector<std::string> args;
  config::HamiSettings hami;
  // The flags accepted without effect, in command-line order (a repeated
  // flag once).
  std::vector<config::FlagNotice> ignored;
};

// `argv` includes argv[0]. Throws CommandLineError.
TranslatedCommandLine translate_command_line(const std::vector<std::string>& argv);

// For --help: one sentence pointing at --help-hami.
std::string hami_flags_summary();

// For --help-hami: every HAMi flag accepted, one a line, those mapped and
// those ignored.
std::string hami_flags_help();

}  // namespace hami::app
