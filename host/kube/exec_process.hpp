// Runs a credential helper as a child process without a shell, bounded in
// time and output: stdin is /dev/null, stdout is captured up to a cap, the
// last bytes of stderr are kept for error messages, and the whole process
// group is killed when the timeout passes.
#pragma once

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace hami::kube {

struct ProcessSpec {
  // A path (containing '/'), or a name looked up in this process's $PATH.
  std::string command;
  std::vector<std::string> args;         // without argv[0]
  std::vector<std::string> environment;  // the child's whole environment, "NAME=value"
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  size_t max_stdout = 1 << 20;
  size_t stderr_tail = 2048;
};

struct ProcessResult {
  enum class End {
    exited,           // `code` is the exit status
    signaled,         // `code` is the signal that ended it
    timed_out,        // killed at the timeout
    too_much_output,  // killed when stdout passed max_stdout
  };
  End end = End::exited;
  int code = 0;
  std::string out;
  std::string err_tail;  // the last stderr_tail bytes of stderr
};

// The child could not be started; `error_number` is the errno (ENOENT: no
// such command).
class ProcessStartError : public std::runtime_error {
 public:
  ProcessStartError(int error_number, const std::string& message)
      : std::runtime_error(message), error_number_(error_number) {}
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

// Runs the command to its end (or its kill); throws ProcessStartError.
ProcessResult run_process(const ProcessSpec& spec);

}  // namespace hami::kube
