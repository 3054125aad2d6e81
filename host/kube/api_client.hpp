// ApiClient: requests to the Kubernetes API server over HTTP/1.1 (HTTPS
// with certificate verification unless the config says otherwise), with
// the behaviour client-go users rely on:
//   - a client-side token bucket (config qps/burst) in front of every
//     ordinary request; watches are not throttled once open;
//   - 429 and 5xx replies that carry Retry-After are retried after that
//     delay (capped at 10 s per wait), up to config max_retries attempts;
//     without the header they are not retried (the caller decides);
//   - a 401 invalidates the token source and the request is sent once more
//     with the re-read token;
//   - an exec plugin's client certificate (config exec_credentials) is
//     presented on every new connection: when a run brings another
//     certificate, new connections use a TLS context made with it (contexts
//     are cached by the certificate and key bytes), idle connections made
//     with the old one are closed and open ones may finish; a 401 also
//     closes the idle connections, so the retry handshakes with the
//     certificate of the plugin's next run;
//   - ordinary requests time out after config request_timeout (applied to
//     the connect, to sending, and to every wait for reply bytes);
//   - a kept-alive connection the server closed while idle is replaced once
//     for GET/PUT/DELETE, or for any method when no reply byte came back.
// Opening a watch takes a rate-limit token and follows the same retry and
// 401 rules; the open stream is not throttled.
// Thread-safe: many threads may issue requests at once (connections are
// pooled and kept alive).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>

#include "kube/api_config.hpp"

namespace hami::log {
class Logger;
}

namespace hami::kube {

// A failed request. status 0: the request never got an HTTP reply
// (connect refused, TLS failure, timeout, reset, stream cut mid-body).
// reason/message come from the reply's Status object when it has one
// ("Conflict", "Expired", "NotFound", "AlreadyExists", "TooManyRequests"…),
// else reason is empty and message describes the failure.
class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string reason, std::string message,
           std::optional<std::chrono::seconds> retry_after = std::nullopt);
  int status() const { return status_; }
  const std::string& reason() const { return reason_; }
  const std::string& message() const { return message_; }
  std::optional<std::chrono::seconds> retry_after() const { return retry_after_; }

 private:
  int status_;
  std::string reason_;
  std::string message_;
  std::optional<std::chrono::seconds> retry_after_;
};

struct ApiResponse {
  int status = 0;  // 2xx
  std::string body;
  std::string content_type;
};

enum class PatchType {
  merge,      // application/merge-patch+json (RFC 7386)
  json,       // application/json-patch+json (RFC 6902)
  strategic,  // application/strategic-merge-patch+json
};

struct ApiClientStats {
  uint64_t requests = 0;        // HTTP exchanges sent (retries included)
  uint64_t retries = 0;         // of those, repeats after 429/5xx/401
  uint64_t throttle_waits = 0;  // requests that waited for a rate-limit token
};

class ApiClient {
 public:
  // How the client waits (retry delays, rate limit); replaceable in tests.
  using Sleeper = std::function<void(std::chrono::milliseconds)>;

  // Throws ApiConfigError when the config cannot be used (bad server URL,
  // unreadable PEM).
  explicit ApiClient(ApiConfig config, const log::Logger* logger = nullptr, Sleeper sleeper = {});
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  // One request; `path_and_query` starts with '/' ("/api/v1/nodes?limit=500").
  // Returns a 2xx reply; throws ApiError otherwise (after the retries above).
  ApiResponse request(std::string_view method, std::string_view path_and_query,
                      std::string_view body = {}, std::string_view content_type = {});
  ApiResponse get(std::string_view path_and_query);
  ApiResponse post(std::string_view path, std::string_view json);
  ApiResponse put(std::string_view path, std::string_view json);
  ApiResponse patch(std::string_view path, PatchType type, std::string_view body);
  ApiResponse remove(std::string_view path);

  // Opens a watch (`path_and_query` carries watch=1 and the rest) and calls
  // `on_line` with every complete line of the chunked body, without the
  // newline (or CR LF), in order; blank lines carry no event and are
  // skipped. Returns when the server ends the stream (a normal
  // timeoutSeconds end), when `on_line` returns false, or soon (<= 1 s)
  // after `stop` is requested; a connect or TLS handshake in progress is
  // bounded by request_timeout instead. A stop never surfaces as an
  // exception. Throws ApiError for a non-200 reply (e.g. 410) or when the
  // stream breaks mid-way (status 0).
  void watch(std::string_view path_and_query,
             const std::function<bool(std::string_view line)>& on_line, std::stop_token stop);

  const ApiConfig& config() const { return config_; }
  ApiClientStats stats() const;

 private:
  struct Impl;
  ApiConfig config_;
  std::unique_ptr<Impl> impl_;
};

// Percent-encodes a query value (RFC 3986 unreserved kept):
// "spec.nodeName=gpu-1" → "spec.nodeName%3Dgpu-1".
std::string query_escape(std::string_view value);

}  // namespace hami::kube
