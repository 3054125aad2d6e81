#include "ops/ops_command.hpp"

#include <array>

namespace hami::ops {

int run_simulate_command(std::span<const std::string> args, std::ostream& out,
                         std::ostream& err);  // simulate_command.cpp
int run_snapshot_command(std::span<const std::string> args, std::ostream& out,
                         std::ostream& err);  // snapshot_command.cpp

int run_explain_command(std::span<const std::string> args, std::ostream& out,
                        std::ostream& err);  // explain_command.cpp

namespace {

// One entry per command; each command's run function lives in its own
// <name>_command.cpp.
constexpr std::array<OpsCommand, 3> kCommands{{
    {"explain", "why a pod fits each node or not, per node and device", &run_explain_command},
    {"simulate", "place a workload under each node/GPU policy pair, in memory",
     &run_simulate_command},
    {"snapshot", "write the cluster as a file-backend snapshot (--anonymize)",
     &run_snapshot_command},
}};

}  // namespace

std::span<const OpsCommand> ops_commands() {
  return kCommands;
}

const OpsCommand* find_ops_command(std::string_view name) {
  for (const OpsCommand& c : kCommands) {
    if (c.name == name)
      return &c;
  }
  return nullptr;
}

}  // namespace hami::ops
