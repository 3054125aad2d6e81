#include "kube/token_source.hpp"

#include <fstream>
#include <sstream>
#include <utility>

#include "kube/api_config.hpp"

namespace hami::kube {
namespace {

// The token with trailing whitespace removed (kubelet-written files end in
// a newline; an editor may add one); nullopt when unreadable or blank.
std::optional<std::string> read_token(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  std::string token = std::move(text).str();
  const auto end = token.find_last_not_of(" \t\r\n");
  if (end == std::string::npos)
    return std::nullopt;
  token.erase(end + 1);
  return token;
}

}  // namespace

FileTokenSource::FileTokenSource(std::filesystem::path file,
                                 std::chrono::milliseconds reload_period, Clock clock)
    : file_(std::move(file)), reload_period_(reload_period), clock_(std::move(clock)) {
  if (!clock_)
    clock_ = [] { return std::chrono::steady_clock::now(); };
  auto token = read_token(file_);
  if (!token) {
    throw ApiConfigError("token file " + file_.string() + ": cannot be read or is empty");
  }
  token_ = std::move(*token);
  read_at_ = clock_();
}

std::string FileTokenSource::token() {
  std::lock_guard lock(mu_);
  const auto now = clock_();
  if (stale_ || now - read_at_ >= reload_period_) {
    // A failed read keeps the last good token: a kubelet rewrite in progress
    // or a transient error must not cut the client off. The next attempt
    // waits a full period unless a 401 marks the token stale again.
    if (auto fresh = read_token(file_))
      token_ = std::move(*fresh);
    read_at_ = now;
    stale_ = false;
  }
  return token_;
}

void FileTokenSource::invalidate() {
  std::lock_guard lock(mu_);
  stale_ = true;
}

}  // namespace hami::kube
