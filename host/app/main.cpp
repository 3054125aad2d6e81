// hami-scheduler: see app/scheduler_app.hpp for the command line.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "app/scheduler_app.hpp"
#include "ops/ops_command.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // One malloc arena. A full-Nodes extender call allocates megabytes (the
  // body, its decoded strings, a thousand node models) on whichever worker
  // thread serves it; with glibc's arena per thread every worker kept its
  // own high-water mark, and one client sending the 5.4 MB body raised peak
  // RSS from 49 MB idle to ~170 MB (~61 MB with one arena). Allocation is a
  // small part of a request's time, so sharing one arena costs little.
  mallopt(M_ARENA_MAX, 1);
#endif
  // `hami-scheduler explain|simulate|snapshot ...`: an operator command
  // instead of the server.
  if (argc > 1) {
    if (const hami::ops::OpsCommand* command = hami::ops::find_ops_command(argv[1])) {
      const std::vector<std::string> args(argv + 2, argv + argc);
      return command->run(args, std::cout, std::cerr);
    }
  }
  hami::app::SchedulerApp app;
  const int code = app.run_command_line(argc, argv);
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::cout << "\nOperator commands (hami-scheduler COMMAND --help for each):\n";
    size_t width = 0;
    for (const hami::ops::OpsCommand& command : hami::ops::ops_commands())
      width = std::max(width, command.name.size());
    for (const hami::ops::OpsCommand& command : hami::ops::ops_commands()) {
      std::cout << "  " << command.name << std::string(width - command.name.size() + 2, ' ')
                << command.summary << "\n";
    }
  }
  return code;
}
