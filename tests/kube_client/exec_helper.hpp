// A credential plugin for tests: a shell script in a temp folder that
// counts its runs in `runs` and then does what the test wrote, and a
// settable clock whose sleeper moves it on.
#pragma once

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "kube/exec_credential_source.hpp"
#include "temp_dir.hpp"

namespace hami::kube::testing {

class ExecHelper {
 public:
  // `body`: shell commands run after the count is updated; $n is the run
  // number (1-based) and $dir the helper's folder.
  explicit ExecHelper(const std::string& body, const std::string& name = "helper.sh") {
    script_ = dir_.write(name, "#!/bin/sh\ndir='" + dir_.path().string() +
                                   "'\nn=$(cat \"$dir/runs\" 2>/dev/null || echo 0)\n"
                                   "n=$((n + 1))\necho \"$n\" > \"$dir/runs\"\n" +
                                   body + "\n");
    std::filesystem::permissions(script_, std::filesystem::perms::owner_all);
  }

  const TempDir& dir() const { return dir_; }
  const std::filesystem::path& script() const { return script_; }

  int runs() const {
    std::ifstream in(dir_.path() / "runs");
    int n = 0;
    in >> n;
    return n;
  }
  std::string file(const std::string& name) const {
    std::ifstream in(dir_.path() / name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  ExecPlugin plugin(std::string_view api_version = kExecApiV1) const {
    ExecPlugin p;
    p.owner = "kubeconfig /k user \"u\"";
    p.api_version = std::string(api_version);
    p.command = script_.string();
    return p;
  }

 private:
  TempDir dir_;
  std::filesystem::path script_;
};

// A shell command printing a v1 ExecCredential with token "tok-$n" and,
// when `expiry` is not empty, that expirationTimestamp.
inline std::string print_token(const std::string& expiry = {}) {
  std::string status = "\"token\":\"tok-'\"$n\"'\"";
  if (!expiry.empty())
    status += ",\"expirationTimestamp\":\"" + expiry + "\"";
  return "printf '%s' '{\"kind\":\"ExecCredential\",\"apiVersion\":"
         "\"client.authentication.k8s.io/v1\",\"status\":{" +
         status + "}}'";
}

class FakeClock {
 public:
  explicit FakeClock(std::chrono::system_clock::time_point start) : now_(start) {}
  std::chrono::system_clock::time_point now() const {
    std::lock_guard lock(mu_);
    return now_;
  }
  void advance(std::chrono::milliseconds d) {
    std::lock_guard lock(mu_);
    now_ += d;
  }
  std::vector<std::chrono::milliseconds> sleeps() const {
    std::lock_guard lock(mu_);
    return sleeps_;
  }
  // Options using this clock; sleeping records the wait and advances it.
  ExecOptions options() {
    ExecOptions o;
    o.clock = [this] { return now(); };
    o.sleeper = [this](std::chrono::milliseconds d) {
      std::lock_guard lock(mu_);
      sleeps_.push_back(d);
      now_ += d;
    };
    return o;
  }

 private:
  mutable std::mutex mu_;
  std::chrono::system_clock::time_point now_;
  std::vector<std::chrono::milliseconds> sleeps_;
};

}  // namespace hami::kube::testing
