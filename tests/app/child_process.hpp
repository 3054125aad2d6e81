// Runs the built hami-scheduler binary as a child process with its stdout
// and stderr captured, for tests of the command line and signal handling.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace hami::test {

class ChildProcess {
 public:
  // `env`: "NAME=VALUE" entries set on top of this process's environment.
  explicit ChildProcess(const std::vector<std::string>& argv,
                        const std::vector<std::string>& env = {});
  ~ChildProcess();  // kills the child if it still runs
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Reads stderr until a line containing `needle` arrives (returned), the
  // stream ends or `timeout` passes (nullopt).
  std::optional<std::string> wait_for_stderr_line(const std::string& needle,
                                                  std::chrono::milliseconds timeout);
  void signal(int sig) const;
  // Waits for exit (bounded); returns the exit status, or -1 when killed by
  // a signal or still running at the deadline. Drains both pipes.
  int wait(std::chrono::milliseconds timeout);

  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  // Moves available bytes from the pipes into out_/err_; waits at most
  // `timeout` for any. False when both pipes are at EOF.
  bool pump(std::chrono::milliseconds timeout);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
  size_t err_scanned_ = 0;
  bool exited_ = false;
};

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs to completion (bounded by 60 s); `env` as for ChildProcess.
RunResult run(const std::vector<std::string>& argv, const std::vector<std::string>& env = {});

}  // namespace hami::test
