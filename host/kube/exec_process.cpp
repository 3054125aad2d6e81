#include "kube/exec_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <thread>

namespace hami::kube {
namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text(int error_number) {
  return std::strerror(error_number);
}

// A file descriptor closed when it goes.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void adopt(int fd) {
    reset();
    fd_ = fd;
  }
  void reset() {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

void open_pipe(Pipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    const int e = errno;
    throw ProcessStartError(e, "cannot create a pipe: " + errno_text(e));
  }
  p.read.adopt(fds[0]);
  p.write.adopt(fds[1]);
}

// posix_spawn attributes and file actions, destroyed when they go.
class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawnattr_init(&attr_);
    posix_spawn_file_actions_init(&actions_);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions_);
    posix_spawnattr_destroy(&attr_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  // stdin from /dev/null, stdout and stderr to the pipes, nothing else
  // inherited; its own process group (so a timeout kills what it started),
  // no blocked signals and the usual ones at their default action.
  void prepare(int out_fd, int err_fd) {
    check(posix_spawn_file_actions_addopen(&actions_, 0, "/dev/null", O_RDONLY, 0));
    check(posix_spawn_file_actions_adddup2(&actions_, out_fd, 1));
    check(posix_spawn_file_actions_adddup2(&actions_, err_fd, 2));
    check(posix_spawn_file_actions_addclosefrom_np(&actions_, 3));
    check(posix_spawnattr_setpgroup(&attr_, 0));
    sigset_t none;
    sigemptyset(&none);
    check(posix_spawnattr_setsigmask(&attr_, &none));
    sigset_t defaults;
    sigemptyset(&defaults);
    for (const int sig : {SIGPIPE, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGCHLD})
      sigaddset(&defaults, sig);
    check(posix_spawnattr_setsigdefault(&attr_, &defaults));
    check(posix_spawnattr_setflags(
        &attr_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
  }

  const posix_spawnattr_t* attr() const { return &attr_; }
  const posix_spawn_file_actions_t* actions() const { return &actions_; }

 private:
  static void check(int rc) {
    if (rc != 0)
      throw ProcessStartError(rc, "cannot prepare the child process: " + errno_text(rc));
  }
  posix_spawnattr_t attr_;
  posix_spawn_file_actions_t actions_;
};

pid_t spawn(const ProcessSpec& spec, int out_fd, int err_fd) {
  SpawnSetup setup;
  setup.prepare(out_fd, err_fd);
  std::vector<char*> argv;
  // posix_spawn takes char* const[]; the strings are not modified.
  argv.push_back(const_cast<char*>(spec.command.c_str()));
  for (const auto& arg : spec.args)
    argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& entry : spec.environment)
    envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  const bool by_path = spec.command.find('/') != std::string::npos;
  const int rc = by_path ? posix_spawn(&pid, spec.command.c_str(), setup.actions(), setup.attr(),
                                       argv.data(), envp.data())
                         : posix_spawnp(&pid, spec.command.c_str(), setup.actions(), setup.attr(),
                                        argv.data(), envp.data());
  if (rc != 0)
    throw ProcessStartError(rc, "cannot run " + spec.command + ": " + errno_text(rc));
  return pid;
}

void kill_group(pid_t pid) {
  // The child leads its own group; the group goes with it.
  if (::kill(-pid, SIGKILL) != 0)
    ::kill(pid, SIGKILL);
}

// waitpid without EINTR; the wait status, or nullopt while still running
// (when `block` is false).
std::optional<int> reap(pid_t pid, bool block) {
  for (;;) {
    int status = 0;
    const pid_t rc = ::waitpid(pid, &status, block ? 0 : WNOHANG);
    if (rc == pid)
      return status;
    if (rc == 0)
      return std::nullopt;
    if (errno != EINTR) {
      const int e = errno;
      throw ProcessStartError(e, "cannot wait for the child process: " + errno_text(e));
    }
  }
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 60'000));
}

// Reads both pipes until EOF on both, the deadline, or too much stdout.
// Returns the End that stopped it early, or exited when both closed.
ProcessResult::End drain(const ProcessSpec& spec, Fd& out_fd, Fd& err_fd, ProcessResult& result,
                         Clock::time_point deadline) {
  std::array<char, 16 * 1024> buffer{};
  while (out_fd.get() >= 0 || err_fd.get() >= 0) {
    const int wait = remaining_ms(deadline);
    if (wait == 0)
      return ProcessResult::End::timed_out;
    std::array<pollfd, 2> fds{pollfd{out_fd.get(), POLLIN, 0}, pollfd{err_fd.get(), POLLIN, 0}};
    const int ready = ::poll(fds.data(), fds.size(), wait);
    if (ready < 0 && errno != EINTR) {
      const int e = errno;
      throw ProcessStartError(e, "cannot poll the child's output: " + errno_text(e));
    }
    for (size_t i = 0; i < fds.size() && ready > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0)
        continue;
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      Fd& fd = i == 0 ? out_fd : err_fd;
      if (n <= 0) {
        fd.reset();
        continue;
      }
      if (i == 0) {
        result.out.append(buffer.data(), static_cast<size_t>(n));
        if (result.out.size() > spec.max_stdout)
          return ProcessResult::End::too_much_output;
      } else {
        result.err_tail.append(buffer.data(), static_cast<size_t>(n));
        if (result.err_tail.size() > spec.stderr_tail)
          result.err_tail.erase(0, result.err_tail.size() - spec.stderr_tail);
      }
    }
  }
  return ProcessResult::End::exited;
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  Pipe out_pipe;
  Pipe err_pipe;
  open_pipe(out_pipe);
  open_pipe(err_pipe);
  const pid_t pid = spawn(spec, out_pipe.write.get(), err_pipe.write.get());
  out_pipe.write.reset();
  err_pipe.write.reset();

  ProcessResult result;
  const auto deadline = Clock::now() + spec.timeout;
  ProcessResult::End end = ProcessResult::End::exited;
  try {
    end = drain(spec, out_pipe.read, err_pipe.read, result, deadline);
  } catch (...) {
    kill_group(pid);
    reap(pid, true);
    throw;
  }
  // Both outputs closed: the child is exiting, or closed them and runs on;
  // either way it gets until the deadline.
  std::optional<int> status;
  while (end == ProcessResult::End::exited && !(status = reap(pid, false))) {
    if (remaining_ms(deadline) == 0) {
      end = ProcessResult::End::timed_out;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (end != ProcessResult::End::exited) {
    kill_group(pid);
    reap(pid, true);
    result.end = end;
    return result;
  }
  if (WIFSIGNALED(*status)) {
    result.end = ProcessResult::End::signaled;
    result.code = WTERMSIG(*status);
  } else {
    result.end = ProcessResult::End::exited;
    result.code = WEXITSTATUS(*status);
  }
  return result;
}

}  // namespace hami::kube
