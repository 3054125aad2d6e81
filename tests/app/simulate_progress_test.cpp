// simulate's progress line: shown on stderr when stderr is a terminal (the
// built binary run on a pseudo-terminal), never when it is redirected.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace hami::test {
namespace {

const std::string kBinary = HAMI_SCHEDULER_BINARY;
const std::string kSourceDir = HAMI_SOURCE_DIR;

struct Output {
  int status = -1;
  std::string terminal;  // what reached the terminal: stderr
};

// Runs `argv` with stderr on a pseudo-terminal and stdout on /dev/null.
Output run_on_terminal(const std::vector<std::string>& argv) {
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  Output out;
  if (pid < 0)
    return out;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n <= 0)
      break;  // EIO once the child has closed the terminal
    out.terminal.append(buffer, static_cast<size_t>(n));
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

class SimulateProgress : public ::testing::Test {
 protected:
  void SetUp() override {
    workload = std::filesystem::temp_directory_path() /
               ("hami-progress-" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(workload) << "apiVersion: apps/v1\nkind: Deployment\n"
                               "metadata: {name: web, namespace: ml}\nspec:\n  replicas: 300\n"
                               "  template:\n    spec:\n      containers:\n      - name: c\n"
                               "        resources: {limits: {nvidia.com/gpu: 1, "
                               "nvidia.com/gpumem: 100}}\n";
  }
  void TearDown() override { std::filesystem::remove(workload); }
  std::vector<std::string> argv() const {
    return {kBinary,        "simulate",      "--config",   kSourceDir + "/config/dev.yaml",
            "--plugin-dir", HAMI_PLUGIN_DIR, "--workload", workload.string()};
  }
  std::filesystem::path workload;
};

TEST_F(SimulateProgress, ShownOnATerminalAndErasedBeforeTheReport) {
  const Output out = run_on_terminal(argv());
  EXPECT_EQ(out.status, 0) << out.terminal;
  EXPECT_NE(out.terminal.find("\r\x1b[Ksimulate: binpack/spread: "), std::string::npos)
      << out.terminal;
  EXPECT_NE(out.terminal.find("\r\x1b[Ksimulate: binpack/spread: 1 of 300 pods"), std::string::npos)
      << out.terminal;
  EXPECT_TRUE(out.terminal.ends_with("\r\x1b[K")) << out.terminal;
}

TEST_F(SimulateProgress, NothingWhenStderrIsNotATerminal) {
  ChildProcess child(argv());
  EXPECT_EQ(child.wait(std::chrono::seconds(100)), 0) << child.err();
  EXPECT_EQ(child.err(), "");
  EXPECT_NE(child.out().find("simulate: 300 pods on 6 nodes"), std::string::npos) << child.out();
}

}  // namespace
}  // namespace hami::test
