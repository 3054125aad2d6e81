// TokenSource: the bearer token for API requests. Service-account tokens
// are projected and rotated by the kubelet, so the file source re-reads the
// file (at most once per `reload_period`, and at once after invalidate())
// and keeps the last good token when a read fails.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>

namespace hami::kube {

class TokenSource {
 public:
  virtual ~TokenSource() = default;
  // The current token; empty when none could ever be read. A source that
  // produces tokens on demand (ExecTokenSource) throws ApiError (status 0)
  // when it cannot, which fails the request being sent.
  virtual std::string token() = 0;
  // The server answered 401: the next token() re-reads the source.
  virtual void invalidate() {}
};

class StaticTokenSource final : public TokenSource {
 public:
  explicit StaticTokenSource(std::string token) : token_(std::move(token)) {}
  std::string token() override { return token_; }

 private:
  std::string token_;
};

class FileTokenSource final : public TokenSource {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // Reads the file once now; throws ApiConfigError (api_config.hpp) when it
  // cannot be read or is empty.
  explicit FileTokenSource(std::filesystem::path file,
                           std::chrono::milliseconds reload_period = std::chrono::seconds(60),
                           Clock clock = {});
  std::string token() override;
  void invalidate() override;

 private:
  std::filesystem::path file_;
  std::chrono::milliseconds reload_period_;
  Clock clock_;
  std::mutex mu_;
  std::string token_;
  std::chrono::steady_clock::time_point read_at_{};
  bool stale_ = false;
};

}  // namespace hami::kube
