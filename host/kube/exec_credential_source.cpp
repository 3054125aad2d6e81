#include "kube/exec_credential_source.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "kube/api_client.hpp"
#include "kube/api_config.hpp"
#include "kube/api_tls.hpp"
#include "kube/exec_process.hpp"

namespace hami::kube {
namespace {

constexpr size_t kStderrTail = 1024;

// A run that failed; the message is complete.
class ExecRunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The last bytes of stderr on one line: line breaks shown as "; ",
// trailing space trimmed.
std::string stderr_summary(const std::string& tail, bool truncated) {
  std::string line;
  bool in_break = false;
  for (const char c : tail) {
    if (c == '\n' || c == '\r') {
      in_break = true;
      continue;
    }
    if (in_break && !line.empty())
      line += "; ";
    in_break = false;
    line += c;
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t'))
    line.pop_back();
  if (line.empty())
    return "no stderr output";
  return std::string("stderr: ") + (truncated ? "…" : "") + line;
}

}  // namespace

ExecCredentialSource::ExecCredentialSource(ExecPlugin plugin, ExecOptions options)
    : plugin_(std::move(plugin)), options_(std::move(options)) {
  if (!options_.clock)
    options_.clock = [] { return std::chrono::system_clock::now(); };
  if (!options_.sleeper)
    options_.sleeper = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
}

std::string ExecCredentialSource::describe() const {
  return plugin_.owner + ": exec command \"" + plugin_.command + "\"";
}

std::vector<std::string> ExecCredentialSource::environment() const {
  std::vector<std::pair<std::string, std::string>> added = plugin_.env;
  added.emplace_back("KUBERNETES_EXEC_INFO", exec_info_json(plugin_.api_version, plugin_.cluster));
  const auto overridden = [&added](std::string_view entry) {
    const std::string_view name = entry.substr(0, entry.find('='));
    for (const auto& [n, v] : added) {
      if (n == name)
        return true;
    }
    return false;
  };
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!overridden(*e))
      out.emplace_back(*e);
  }
  // A name listed twice: the last entry wins, as for exec.Cmd.
  for (size_t i = 0; i < added.size(); ++i) {
    bool later = false;
    for (size_t j = i + 1; j < added.size() && !later; ++j)
      later = added[j].first == added[i].first;
    if (!later)
      out.push_back(added[i].first + "=" + added[i].second);
  }
  return out;
}

ExecCredential ExecCredentialSource::run() const {
  ProcessSpec spec;
  spec.command = plugin_.command;
  spec.args = plugin_.args;
  spec.environment = environment();
  spec.timeout = options_.timeout;
  spec.max_stdout = options_.max_output;
  spec.stderr_tail = kStderrTail + 1;
  ProcessResult result;
  try {
    result = run_process(spec);
  } catch (const ProcessStartError& e) {
    if (e.error_number() == ENOENT) {
      std::string what = describe() + " not found";
      if (plugin_.command.find('/') == std::string::npos)
        what += " in $PATH";
      if (!plugin_.install_hint.empty())
        what += ": " + plugin_.install_hint;
      throw ExecRunError(what);
    }
    throw ExecRunError(describe() + ": " + e.what());
  }
  const bool truncated = result.err_tail.size() > kStderrTail;
  if (truncated)
    result.err_tail.erase(0, result.err_tail.size() - kStderrTail);
  const std::string err = stderr_summary(result.err_tail, truncated);
  switch (result.end) {
    case ProcessResult::End::timed_out:
      throw ExecRunError(describe() + " did not finish within " +
                         std::to_string(options_.timeout.count()) + " ms and was killed (" + err +
                         ")");
    case ProcessResult::End::too_much_output:
      throw ExecRunError(describe() + " wrote more than " + std::to_string(options_.max_output) +
                         " bytes to stdout and was killed");
    case ProcessResult::End::signaled:
      throw ExecRunError(describe() + " was killed by signal " + std::to_string(result.code) +
                         " (" + ::strsignal(result.code) + "; " + err + ")");
    case ProcessResult::End::exited:
      break;
  }
  if (result.code != 0) {
    throw ExecRunError(describe() + " exited with code " + std::to_string(result.code) + " (" +
                       err + ")");
  }
  ExecCredential credential;
  try {
    credential = parse_exec_credential(result.out, plugin_.api_version);
  } catch (const ExecCredentialError& e) {
    throw ExecRunError(describe() + " printed an unusable ExecCredential: " + e.what());
  }
  if (!credential.client_certificate_pem.empty()) {
    try {
      check_client_certificate(credential.client_certificate_pem, credential.client_key_pem);
    } catch (const ApiConfigError& e) {
      throw ExecRunError(describe() + " returned an unusable client certificate: " + e.what());
    }
  }
  return credential;
}

bool ExecCredentialSource::usable(TimePoint now) const {
  return cached_ && !stale_ && (!cached_->expires_at || now < *cached_->expires_at);
}

std::shared_ptr<const ExecCredential> ExecCredentialSource::credential() {
  std::lock_guard lock(mu_);
  TimePoint now = options_.clock();
  if (cached_ && !stale_ && (!cached_->refresh_at || now < *cached_->refresh_at))
    return cached_->credential;
  // A refresh is due. A clock that went back counts as a long wait.
  if (last_run_ && now >= *last_run_ && now - *last_run_ < options_.min_rerun_interval) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        options_.min_rerun_interval - (now - *last_run_));
    if (!last_error_.empty()) {
      if (usable(now))
        return cached_->credential;
      throw ApiError(0, "", last_error_);
    }
    if (!stale_)
      return cached_->credential;  // expired on arrival: the server judges it
    // Rejected right after it was obtained: the retry gets a fresh run.
    options_.sleeper(left);
    now = options_.clock();
  }
  last_run_ = now;
  ExecCredential credential;
  try {
    credential = run();
  } catch (const ExecRunError& e) {
    last_error_ = e.what();
    if (usable(now))
      return cached_->credential;
    throw ApiError(0, "", last_error_);
  }
  last_error_.clear();
  stale_ = false;
  Cached fresh;
  if (credential.expires_at) {
    const TimePoint expires = TimePoint(std::chrono::seconds(*credential.expires_at));
    fresh.expires_at = expires;
    const auto validity = expires > now ? expires - now : TimePoint::duration::zero();
    fresh.refresh_at =
        expires - std::min<TimePoint::duration>(options_.refresh_margin, validity / 2);
  }
  fresh.credential = std::make_shared<const ExecCredential>(std::move(credential));
  cached_ = std::move(fresh);
  return cached_->credential;
}

void ExecCredentialSource::invalidate() {
  std::lock_guard lock(mu_);
  stale_ = true;
}

}  // namespace hami::kube
