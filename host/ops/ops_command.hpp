// Operator commands of the hami-scheduler executable, run instead of the
// server when the first argument names one: `hami-scheduler explain ...`,
// `simulate ...`, `snapshot ...` (docs/explain.md, docs/simulate.md). They
// never write to the cluster: everything they schedule happens on an
// in-memory copy (the file backend), or read-only on the live ledger.
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

namespace hami::ops {

struct OpsCommand {
  std::string_view name;     // the first argument
  std::string_view summary;  // one line for --help
  // `args`: the arguments after the command name. Returns the exit code:
  // 0 done, 1 failed (the reason on `err`), 2 usage error.
  int (*run)(std::span<const std::string> args, std::ostream& out, std::ostream& err);
};

// Every operator command, in --help order.
std::span<const OpsCommand> ops_commands();

// The command named `name`, or nullptr.
const OpsCommand* find_ops_command(std::string_view name);

}  // namespace hami::ops
