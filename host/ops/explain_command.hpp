// `hami-scheduler explain` (docs/explain.md):
//
//   hami-scheduler explain [--config FILE] [--cluster file:PATH | kubernetes]
//       (POD.yaml | - | --pod NS/NAME) [--output text|json]
//
// Why a pod fits each node of an in-memory copy of the cluster or not
// (scheduling::Scheduler::explain). POD.yaml (or - for standard input) is
// one Pod, YAML or JSON; --pod names a pod of the cluster. Exit codes: 0
// explained (a pod that fits nowhere is a result), 1 the config, plugins,
// cluster or pod could not be used (the message on `err`), 2 usage.
#pragma once

#include <iosfwd>
#include <span>
#include <string>

namespace hami::ops {

// The command with `in` as standard input (for `-`).
int run_explain(std::span<const std::string> args, std::istream& in, std::ostream& out,
                std::ostream& err);

// The command table's entry: run_explain on std::cin.
int run_explain_command(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace hami::ops
