#include "conformance/check_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <exception>

namespace hami::conformance {
namespace {

CheckResult result_of(const Check& check, const CheckContext& context) {
  CheckResult result{std::string(check.name), std::string(check.summary), Outcome::passed, {}, {}};
  if (!context.problems().empty()) {
    result.outcome = Outcome::failed;
    result.problems = context.problems();
  } else if (context.skipped()) {
    result.outcome = Outcome::skipped;
    result.note = context.skip_reason();
  }
  return result;
}

void run_in_process(const PluginUnderTest& plugin, const Check& check, CheckContext& context) {
  try {
    check.run(plugin, context);
  } catch (const std::exception& e) {
    context.fail(std::string("an exception escaped the plugin: ") + e.what());
  } catch (...) {
    context.fail("an exception of unknown type escaped the plugin");
  }
}

// The child's result travels as the outcome letter (P, F or S) followed by
// length-prefixed fields ("<bytes>:<text>"): the problems, or the skip
// reason. Lengths, not separators, because messages may quote any byte a
// plugin was fed.
std::string encode(const CheckResult& result) {
  std::string out(1, result.outcome == Outcome::failed    ? 'F'
                     : result.outcome == Outcome::skipped ? 'S'
                                                          : 'P');
  const auto field = [&out](const std::string& text) {
    out += std::to_string(text.size());
    out += ':';
    out += text;
  };
  for (const std::string& problem : result.problems) {
    field(problem);
  }
  if (result.outcome == Outcome::skipped) {
    field(result.note);
  }
  return out;
}

// False when `data` is not something encode() wrote.
bool decode(const std::string& data, CheckResult& result) {
  if (data.empty() || (data[0] != 'P' && data[0] != 'F' && data[0] != 'S')) {
    return false;
  }
  std::vector<std::string> fields;
  std::size_t at = 1;
  while (at < data.size()) {
    const std::size_t colon = data.find(':', at);
    std::size_t length = 0;
    const auto [end, ec] = std::from_chars(data.data() + at, data.data() + colon, length);
    if (colon == std::string::npos || ec != std::errc{} || end != data.data() + colon ||
        length > data.size() - colon - 1) {
      return false;
    }
    fields.push_back(data.substr(colon + 1, length));
    at = colon + 1 + length;
  }
  if (data[0] == 'F') {
    result.outcome = Outcome::failed;
    result.problems = std::move(fields);
  } else if (data[0] == 'S') {
    result.outcome = Outcome::skipped;
    result.note = fields.empty() ? std::string() : fields.front();
  } else {
    result.outcome = Outcome::passed;
  }
  return true;
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads until EOF or the deadline; false on timeout.
bool read_all(int fd, std::string& out, std::chrono::steady_clock::time_point deadline) {
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return false;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready <= 0) {
      return false;
    }
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return true;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
}

CheckResult run_isolated(const PluginUnderTest& plugin, const Check& check,
                         const RunOptions& options) {
  CheckResult result{std::string(check.name), std::string(check.summary), Outcome::failed, {}, {}};
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.problems.push_back(std::string("cannot create a pipe: ") + std::strerror(errno));
    return result;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    result.problems.push_back(std::string("cannot fork: ") + std::strerror(errno));
    return result;
  }
  if (child == 0) {
    ::close(fds[0]);
    CheckContext context;
    run_in_process(plugin, check, context);
    const bool sent = write_all(fds[1], encode(result_of(check, context)));
    // _exit: the parent's atexit handlers and stdio buffers are not ours.
    ::_exit(sent ? 0 : 3);
  }
  ::close(fds[1]);
  std::string data;
  const bool finished = read_all(fds[0], data, std::chrono::steady_clock::now() + options.timeout);
  ::close(fds[0]);
  if (!finished) {
    ::kill(child, SIGKILL);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    result.problems.push_back("did not finish within " + std::to_string(options.timeout.count()) +
                              " s (hung or too slow)");
  } else if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    result.problems.push_back("crashed with signal " + std::to_string(sig) + " (" +
                              ::strsignal(sig) + ")");
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || data.empty()) {
    result.problems.push_back("the check process exited with status " +
                              std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                              " before reporting (the plugin called exit?)");
  } else if (!decode(data, result)) {
    result.problems.push_back("the check process reported garbage (the plugin wrote to its pipe?)");
  }
  return result;
}

}  // namespace

CheckResult run_check(const PluginUnderTest& plugin, const Check& check,
                      const RunOptions& options) {
  if (options.isolate) {
    return run_isolated(plugin, check, options);
  }
  CheckContext context;
  run_in_process(plugin, check, context);
  return result_of(check, context);
}

std::vector<CheckResult> run_checks(const PluginUnderTest& plugin, const RunOptions& options) {
  std::vector<CheckResult> results;
  for (const Check* check : checks_for(plugin.kind())) {
    results.push_back(run_check(plugin, *check, options));
  }
  return results;
}

}  // namespace hami::conformance
