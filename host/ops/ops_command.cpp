#include "ops/ops_command.hpp"

#include <array>

namespace hami::ops {

namespace {

// One entry per command; each command's run function lives in its own
// <name>_command.cpp.
constexpr std::array<OpsCommand, 0> kCommands{};

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
