// ExecCredentialSource: the credential of a kubeconfig `exec` user — a
// bearer token, a client certificate and key (PEM), or both — obtained by
// running its client-go credential plugin (client.authentication.k8s.io v1
// or v1beta1) as client-go does:
//   - the command runs without a shell, stdin from /dev/null, with this
//     process's environment plus the user's env entries plus
//     KUBERNETES_EXEC_INFO (spec.interactive false; spec.cluster when the
//     user sets provideClusterInfo); bounded by a timeout (killed on expiry,
//     with everything it started) and an output cap;
//   - stdout is an ExecCredential (exec_credential.hpp); a client
//     certificate must parse and match its key. The credential is kept
//     until shortly before status.expirationTimestamp (10 s, or half the
//     validity when shorter), without one until the server answers 401
//     (invalidate());
//   - a failing run makes credential() throw ApiError (status 0) whose
//     message names the user, the command and what went wrong (exit code and
//     the tail of stderr, a timeout, a malformed ExecCredential, an unusable
//     certificate). A credential still valid (only due for refresh) keeps
//     being used meanwhile. The command runs at most once per
//     `min_rerun_interval` (1 s): within it a failed run's error is
//     repeated, and a re-run after a 401 waits for it.
// The token reaches requests through ExecTokenSource
// (exec_token_source.hpp); the ApiClient asks credential() for the
// certificate of each new connection.
// Thread-safe: concurrent callers wait for one run.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kube/exec_credential.hpp"

namespace hami::kube {

// A kubeconfig user's exec section, ready to run.
struct ExecPlugin {
  std::string owner;        // for messages: "kubeconfig /root/.kube/config user \"eks\""
  std::string api_version;  // kExecApiV1 or kExecApiV1beta1
  // A path (relative ones already resolved against the kubeconfig's folder)
  // or a bare name looked up in $PATH.
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;                // shown when the command is not found
  std::optional<ExecClusterInfo> cluster;  // provideClusterInfo: true
};

struct ExecOptions {
  using Clock = std::function<std::chrono::system_clock::time_point()>;
  using Sleeper = std::function<void(std::chrono::milliseconds)>;
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  size_t max_output = 1 << 20;
  std::chrono::seconds refresh_margin{10};
  std::chrono::milliseconds min_rerun_interval{std::chrono::seconds(1)};
  Clock clock;      // empty: system_clock (expirationTimestamp is wall-clock time)
  Sleeper sleeper;  // empty: std::this_thread::sleep_for
};

class ExecCredentialSource {
 public:
  explicit ExecCredentialSource(ExecPlugin plugin, ExecOptions options = {});

  // The current credential; runs the command when none usable is cached.
  // Throws ApiError. The result stays valid after later runs.
  std::shared_ptr<const ExecCredential> credential();
  // The server answered 401: the next credential() runs the command.
  void invalidate();

  const ExecPlugin& plugin() const { return plugin_; }
  // "<owner>: exec command \"<command>\"", the start of every message.
  std::string describe() const;

 private:
  using TimePoint = std::chrono::system_clock::time_point;
  struct Cached {
    std::shared_ptr<const ExecCredential> credential;
    std::optional<TimePoint> expires_at;
    std::optional<TimePoint> refresh_at;
  };

  // One run of the command: the credential, or ExecRunError.
  ExecCredential run() const;
  std::vector<std::string> environment() const;
  // The cached credential may still be sent: not rejected, not expired.
  bool usable(TimePoint now) const;

  ExecPlugin plugin_;
  ExecOptions options_;
  std::mutex mu_;
  std::optional<Cached> cached_;
  bool stale_ = false;
  std::optional<TimePoint> last_run_;
  std::string last_error_;  // the last run's failure; empty after a success
};

}  // namespace hami::kube
