#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

extern char** environ;

namespace hami::test {

namespace {

// This process's environment with `overrides` ("NAME=VALUE") replacing or
// adding variables.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  std::vector<std::string> out;
  const auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& o : overrides)
      replaced = replaced || name_of(o) == name_of(entry);
    if (!replaced)
      out.push_back(entry);
  }
  out.insert(out.end(), overrides.begin(), overrides.end());
  return out;
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::vector<std::string>& env) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0)
    throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> environment = environment_with(env);
  std::vector<char*> envp;
  for (const auto& e : environment)
    envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const int rc = posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
  if (rc != 0)
    throw std::runtime_error("posix_spawn failed for " + argv.front());
}

ChildProcess::~ChildProcess() {
  if (!exited_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0)
    close(out_fd_);
  if (err_fd_ >= 0)
    close(err_fd_);
}

bool ChildProcess::pump(std::chrono::milliseconds timeout) {
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (out_fd_ < 0 && err_fd_ < 0)
    return false;
  const int n = poll(fds, 2, static_cast<int>(timeout.count()));
  if (n <= 0)
    return true;
  const auto drain = [](int& fd, short revents, std::string& into) {
    if (fd < 0 || (revents & (POLLIN | POLLHUP | POLLERR)) == 0)
      return;
    char buf[4096];
    const ssize_t got = read(fd, buf, sizeof buf);
    if (got > 0) {
      into.append(buf, static_cast<size_t>(got));
    } else {
      close(fd);
      fd = -1;
    }
  };
  drain(out_fd_, fds[0].revents, out_);
  drain(err_fd_, fds[1].revents, err_);
  return out_fd_ >= 0 || err_fd_ >= 0;
}

std::optional<std::string> ChildProcess::wait_for_stderr_line(const std::string& needle,
                                                              std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    size_t line_end = 0;
    while ((line_end = err_.find('\n', err_scanned_)) != std::string::npos) {
      const std::string line = err_.substr(err_scanned_, line_end - err_scanned_);
      err_scanned_ = line_end + 1;
      if (line.find(needle) != std::string::npos)
        return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return std::nullopt;
    if (!pump(left))
      return std::nullopt;
  }
}

void ChildProcess::signal(int sig) const {
  kill(pid_, sig);
}

int ChildProcess::wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    pump(std::chrono::milliseconds(50));
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exited_ = true;
      const auto drain_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (pump(std::chrono::milliseconds(50)) &&
             std::chrono::steady_clock::now() < drain_deadline) {
      }
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
  }
  return -1;
}

RunResult run(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  ChildProcess child(argv, env);
  RunResult r;
  r.exit_code = child.wait(std::chrono::seconds(60));
  r.out = child.out();
  r.err = child.err();
  return r;
}

}  // namespace hami::test
