#include "kube/api_client.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPBasicCredentials.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SSLException.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/URI.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <mutex>
#include <ostream>
#include <thread>
#include <utility>
#include <vector>

#include "kube/api_error.hpp"
#include "kube/api_tls.hpp"
#include "kube/exec_credential_source.hpp"
#include "kube/http_body.hpp"
#include "kube/rate_limiter.hpp"
#include "log/logger.hpp"

namespace hami::kube {
namespace {

constexpr std::chrono::seconds kMaxRetryWait{10};
constexpr size_t kMaxIdleConnections = 16;
// TLS contexts kept for exec plugin certificates; a rotation adds one.
constexpr size_t kMaxExecTlsContexts = 4;
constexpr std::string_view kUserAgent = "hami-scheduler/" HAMI_KUBE_VERSION;
// A watch with no byte for this long past its timeoutSeconds is a dead
// connection (a peer gone without a FIN); without timeoutSeconds the server
// picks up to an hour.
constexpr std::chrono::seconds kWatchIdleMargin{60};
constexpr std::chrono::seconds kWatchIdleDefault{3660};

// Poco keeps the bytes it read past the reply headers in the session's
// buffer and exposes them only to subclasses; the body is read through it
// so HttpBodyReader sees exactly what follows the headers.
class BodySource {
 public:
  virtual ~BodySource() = default;
  virtual size_t read_some(char* out, size_t max) = 0;
};

template <class Session>
class RawSession final : public Session, public BodySource {
 public:
  using Session::Session;
  size_t read_some(char* out, size_t max) override {
    const int n = Session::read(out, static_cast<std::streamsize>(max));
    return n > 0 ? static_cast<size_t>(n) : 0;
  }
};

struct Connection {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  BodySource* body = nullptr;   // the same object as `session`
  Poco::Net::Context::Ptr tls;  // what it was opened with; null for http://
  bool reused = false;
};

Poco::Timespan timespan(std::chrono::milliseconds d) {
  return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(d.count()) * 1000);
}

bool idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE";
}

HttpBodyReader body_reader(Connection& c, const Poco::Net::HTTPResponse& response,
                           std::string_view method) {
  HttpBodyReader::Source source = [&c](char* out, size_t max) {
    return c.body->read_some(out, max);
  };
  const int status = static_cast<int>(response.getStatus());
  if (method == "HEAD" || status < 200 || status == 204 || status == 304)
    return HttpBodyReader(std::move(source), HttpBodyReader::Framing::none);
  if (response.getChunkedTransferEncoding())
    return HttpBodyReader(std::move(source), HttpBodyReader::Framing::chunked);
  if (response.hasContentLength()) {
    return HttpBodyReader(std::move(source), HttpBodyReader::Framing::length,
                          static_cast<uint64_t>(response.getContentLength64()));
  }
  return HttpBodyReader(std::move(source), HttpBodyReader::Framing::until_close);
}

// The timeoutSeconds of a watch query, if any.
std::optional<std::chrono::seconds> watch_timeout(std::string_view path_and_query) {
  const auto q = path_and_query.find('?');
  if (q == std::string_view::npos)
    return std::nullopt;
  std::string_view query = path_and_query.substr(q + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    constexpr std::string_view key = "timeoutSeconds=";
    if (pair.substr(0, key.size()) == key) {
      const std::string_view value = pair.substr(key.size());
      int64_t seconds = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
      if (ec == std::errc{} && end == value.data() + value.size() && seconds > 0)
        return std::chrono::seconds(seconds);
    }
    if (amp == std::string_view::npos)
      break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

}  // namespace

struct ApiClient::Impl {
  Impl(const ApiConfig& config, const log::Logger* logger, Sleeper sleeper);

  // A reply whose headers were read; the body is still on `connection`.
  struct Opened {
    std::unique_ptr<Connection> connection;
    Poco::Net::HTTPResponse response;
  };
  // A complete reply of an ordinary request.
  struct Reply {
    int status = 0;
    std::string reason_phrase;
    std::string body;
    std::string content_type;
    std::optional<std::chrono::seconds> retry_after;
  };

  // The TLS context for a new connection: the one made from the config,
  // or one with the exec plugin's current client certificate (cached by
  // its bytes). Null for http://. Throws ApiError when the plugin fails.
  Poco::Net::Context::Ptr connection_tls();
  std::unique_ptr<Connection> connect(const Poco::Net::Context::Ptr& context,
                                      std::chrono::milliseconds receive_timeout) const;
  // An idle connection opened with `context`, else a new one. Idle
  // connections of another context (a rotated certificate) are closed.
  std::unique_ptr<Connection> take(const Poco::Net::Context::Ptr& context);
  void give_back(std::unique_ptr<Connection> c);
  void drop_idle();

  // Sends one request and reads the reply headers. A pooled connection the
  // server closed while idle is replaced once, for requests that are safe
  // to repeat or that provably got no reply. `after_send` runs once the
  // request is on the wire (the watch publishes its socket there).
  void open(Opened& out, std::string_view method, const std::string& target, std::string_view body,
            std::string_view content_type, bool pooled, std::chrono::milliseconds receive_timeout,
            const std::function<void(Connection&)>& after_send);
  Reply exchange(std::string_view method, const std::string& target, std::string_view body,
                 std::string_view content_type);

  void authorize(Poco::Net::HTTPRequest& request) const;
  void throttle();
  // Whether a failed reply is worth another attempt; waits when it is.
  // With a stoppable `stop` (watches) the wait goes in slices of at most a
  // second and a stop ends it early; the caller then sees stop requested.
  bool retry_after_failure(int status, std::optional<std::chrono::seconds> retry_after,
                           int attempts, bool& reauthenticated, std::string_view method,
                           const std::string& target, const std::stop_token& stop = {});
  [[noreturn]] void transport_failure(std::string_view method, const std::string& target,
                                      const std::exception& e) const;

  const ApiConfig& config;
  const log::Logger* logger;
  Sleeper sleeper;
  RateLimiter limiter;
  std::string host;
  uint16_t port = 0;
  std::string base_path;  // a server URL's path prefix, without the trailing '/'
  std::string verify_name;
  Poco::Net::Context::Ptr tls;  // null for http://

  struct ExecTls {
    std::string cert_pem;
    std::string key_pem;
    Poco::Net::Context::Ptr context;
  };
  std::mutex exec_tls_mu;
  std::vector<ExecTls> exec_tls;  // the newest last

  std::mutex pool_mu;
  std::vector<std::unique_ptr<Connection>> idle;

  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> throttle_waits{0};
};

ApiClient::Impl::Impl(const ApiConfig& cfg, const log::Logger* log, Sleeper sleep)
    : config(cfg),
      logger(log),
      sleeper(sleep ? std::move(sleep)
                    : Sleeper([](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); })),
      limiter(cfg.qps, cfg.burst, sleeper) {
  Poco::URI uri;
  try {
    uri = Poco::URI(cfg.server);
  } catch (const Poco::Exception& e) {
    throw ApiConfigError(cfg.origin + ": server \"" + cfg.server +
                         "\" is not a URL: " + e.displayText());
  }
  const std::string scheme = uri.getScheme();
  if ((scheme != "https" && scheme != "http") || uri.getHost().empty()) {
    throw ApiConfigError(cfg.origin + ": server \"" + cfg.server +
                         "\" must be an https:// URL with a host");
  }
  host = uri.getHost();
  port = uri.getPort();
  base_path = uri.getPath();
  while (!base_path.empty() && base_path.back() == '/')
    base_path.pop_back();
  verify_name = cfg.tls_server_name.empty() ? host : cfg.tls_server_name;
  if (scheme == "https") {
    tls = make_client_tls(cfg, verify_name);
    if (cfg.insecure_skip_verify && logger != nullptr) {
      logger->warn("kubernetes API server certificate is not verified",
                   {{"server", cfg.server}, {"origin", cfg.origin}});
    }
  }
}

Poco::Net::Context::Ptr ApiClient::Impl::connection_tls() {
  if (!tls || !config.exec_credentials)
    return tls;
  const std::shared_ptr<const ExecCredential> credential = config.exec_credentials->credential();
  if (credential->client_certificate_pem.empty())
    return tls;
  std::lock_guard lock(exec_tls_mu);
  for (const ExecTls& entry : exec_tls) {
    if (entry.cert_pem == credential->client_certificate_pem &&
        entry.key_pem == credential->client_key_pem)
      return entry.context;
  }
  ExecTls entry{credential->client_certificate_pem, credential->client_key_pem, {}};
  try {
    entry.context = make_client_tls(config, verify_name, entry.cert_pem, entry.key_pem);
  } catch (const ClientCertificateError& e) {
    throw ApiError(0, "",
                   config.exec_credentials->describe() +
                       " returned an unusable client certificate: " + e.what());
  } catch (const ApiConfigError& e) {
    throw ApiError(0, "", e.what());
  }
  if (exec_tls.size() >= kMaxExecTlsContexts)
    exec_tls.erase(exec_tls.begin());
  exec_tls.push_back(std::move(entry));
  return exec_tls.back().context;
}

std::unique_ptr<Connection> ApiClient::Impl::connect(
    const Poco::Net::Context::Ptr& context, std::chrono::milliseconds receive_timeout) const {
  auto c = std::make_unique<Connection>();
  c->tls = context;
  if (context) {
    auto session = std::make_unique<RawSession<Poco::Net::HTTPSClientSession>>(host, port, context);
    if (!config.tls_server_name.empty()) {
      // Poco sends the connect host as SNI unless the socket already names a
      // peer; the override must reach the server as well.
      Poco::Net::SecureStreamSocket secure(session->socket());
      secure.setPeerHostName(config.tls_server_name);
    }
    c->body = session.get();
    c->session = std::move(session);
  } else {
    auto session = std::make_unique<RawSession<Poco::Net::HTTPClientSession>>(host, port);
    c->body = session.get();
    c->session = std::move(session);
  }
  c->session->setKeepAlive(true);
  c->session->setTimeout(timespan(config.request_timeout), timespan(config.request_timeout),
                         timespan(receive_timeout));
  return c;
}

std::unique_ptr<Connection> ApiClient::Impl::take(const Poco::Net::Context::Ptr& context) {
  std::vector<std::unique_ptr<Connection>> obsolete;  // closed outside the lock
  {
    std::lock_guard lock(pool_mu);
    while (!idle.empty()) {
      auto c = std::move(idle.back());
      idle.pop_back();
      if (c->tls != context) {
        obsolete.push_back(std::move(c));
        continue;
      }
      c->reused = true;
      return c;
    }
  }
  return connect(context, config.request_timeout);
}

void ApiClient::Impl::drop_idle() {
  std::vector<std::unique_ptr<Connection>> dropped;  // closed outside the lock
  std::lock_guard lock(pool_mu);
  dropped.swap(idle);
}

void ApiClient::Impl::give_back(std::unique_ptr<Connection> c) {
  std::lock_guard lock(pool_mu);
  if (idle.size() < kMaxIdleConnections)
    idle.push_back(std::move(c));
}

void ApiClient::Impl::authorize(Poco::Net::HTTPRequest& request) const {
  const std::string token = config.token ? config.token->token() : std::string();
  if (!token.empty()) {
    request.set("Authorization", "Bearer " + token);
  } else if (!config.basic_username.empty()) {
    Poco::Net::HTTPBasicCredentials(config.basic_username, config.basic_password)
        .authenticate(request);
  }
}

void ApiClient::Impl::throttle() {
  if (limiter.acquire().count() > 0)
    throttle_waits.fetch_add(1, std::memory_order_relaxed);
}

void ApiClient::Impl::transport_failure(std::string_view method, const std::string& target,
                                        const std::exception& e) const {
  std::string what = std::string(method) + " " + config.server + target + ": ";
  if (const auto* ssl = dynamic_cast<const Poco::Net::SSLException*>(&e)) {
    what += "TLS failure: " + ssl->displayText();
    if (ssl->displayText().find("certificate verify failed") != std::string::npos) {
      what += " (the server certificate is not signed by the configured CA or does not name \"" +
              verify_name + "\")";
    }
  } else if (dynamic_cast<const Poco::TimeoutException*>(&e) != nullptr) {
    what += "timed out after " + std::to_string(config.request_timeout.count()) + " ms";
  } else if (const auto* poco = dynamic_cast<const Poco::Exception*>(&e)) {
    what += poco->displayText();
  } else {
    what += e.what();
  }
  throw ApiError(0, "", what);
}

void ApiClient::Impl::open(Opened& out, std::string_view method, const std::string& target,
                           std::string_view body, std::string_view content_type, bool pooled,
                           std::chrono::milliseconds receive_timeout,
                           const std::function<void(Connection&)>& after_send) {
  for (int attempt = 0;; ++attempt) {
    bool reused = false;
    try {
      const Poco::Net::Context::Ptr context = connection_tls();
      out.connection = pooled ? take(context) : connect(context, receive_timeout);
      Connection& c = *out.connection;
      reused = c.reused;
      Poco::Net::HTTPRequest request(std::string(method), target, Poco::Net::HTTPMessage::HTTP_1_1);
      request.set("Accept", "application/json");
      request.set("User-Agent", std::string(kUserAgent));
      authorize(request);
      if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
        request.setContentType(
            std::string(content_type.empty() ? "application/json" : content_type));
        request.setContentLength64(static_cast<Poco::Int64>(body.size()));
      }
      requests.fetch_add(1, std::memory_order_relaxed);
      std::ostream& os = c.session->sendRequest(request);
      os.write(body.data(), static_cast<std::streamsize>(body.size()));
      os.flush();
      if (!os.good()) {
        if (const Poco::Exception* e = c.session->networkException())
          e->rethrow();
        throw Poco::IOException("cannot send the request body");
      }
      if (after_send)
        after_send(c);
      out.response = Poco::Net::HTTPResponse();
      c.session->receiveResponse(out.response);
      return;
    } catch (const Poco::Exception& e) {
      const bool no_reply = dynamic_cast<const Poco::Net::NoMessageException*>(&e) != nullptr;
      if (reused && attempt == 0 && (idempotent(method) || no_reply))
        continue;  // the pooled connection had gone stale; this one is fresh
      transport_failure(method, target, e);
    }
  }
}

ApiClient::Impl::Reply ApiClient::Impl::exchange(std::string_view method, const std::string& target,
                                                 std::string_view body,
                                                 std::string_view content_type) {
  Opened opened;
  open(opened, method, target, body, content_type, true, config.request_timeout, {});
  Reply reply;
  const Poco::Net::HTTPResponse& response = opened.response;
  reply.status = static_cast<int>(response.getStatus());
  reply.reason_phrase = response.getReason();
  reply.content_type = response.getContentType();
  if (response.has("Retry-After"))
    reply.retry_after = parse_retry_after(response.get("Retry-After"));
  try {
    reply.body = body_reader(*opened.connection, response, method).read_all();
  } catch (const HttpBodyError& e) {
    throw ApiError(0, "",
                   std::string(method) + " " + config.server + target + ": reply cut: " + e.what());
  } catch (const Poco::Exception& e) {
    transport_failure(method, target, e);
  }
  if (response.getKeepAlive())
    give_back(std::move(opened.connection));
  return reply;
}

bool ApiClient::Impl::retry_after_failure(int status,
                                          std::optional<std::chrono::seconds> retry_after,
                                          int attempts, bool& reauthenticated,
                                          std::string_view method, const std::string& target,
                                          const std::stop_token& stop) {
  if (status == 401 && (config.token || config.exec_credentials) && !reauthenticated) {
    // The token may have been rotated since it was read: re-read and resend
    // once; a second 401 is the caller's to see.
    if (config.token)
      config.token->invalidate();
    if (config.exec_credentials) {
      // The plugin's next run may bring another certificate: the retry
      // must not go out on a connection authenticated with the old one.
      config.exec_credentials->invalidate();
      drop_idle();
    }
    reauthenticated = true;
    retries.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  const bool retryable = status == 429 || status >= 500;
  if (!retryable || !retry_after || attempts >= std::max(config.max_retries, 1))
    return false;
  const auto wait = std::min(*retry_after, kMaxRetryWait);
  if (logger != nullptr) {
    logger->info("kubernetes API asked to retry", {{"method", std::string(method)},
                                                   {"path", target},
                                                   {"status", std::to_string(status)},
                                                   {"retry_after_s", std::to_string(wait.count())},
                                                   {"attempt", std::to_string(attempts)}});
  }
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(wait);
  const std::chrono::milliseconds slice =
      stop.stop_possible() ? std::chrono::milliseconds(1000) : left;
  while (left.count() > 0 && !stop.stop_requested()) {
    const auto step = std::min(left, slice);
    sleeper(step);
    left -= step;
  }
  retries.fetch_add(1, std::memory_order_relaxed);
  return true;
}

ApiClient::ApiClient(ApiConfig config, const log::Logger* logger, Sleeper sleeper)
    : config_(std::move(config)),
      impl_(std::make_unique<Impl>(config_, logger, std::move(sleeper))) {}

ApiClient::~ApiClient() = default;

ApiResponse ApiClient::request(std::string_view method, std::string_view path_and_query,
                               std::string_view body, std::string_view content_type) {
  const std::string target = impl_->base_path + std::string(path_and_query);
  bool reauthenticated = false;
  for (int attempts = 1;; ++attempts) {
    impl_->throttle();
    Impl::Reply reply = impl_->exchange(method, target, body, content_type);
    if (reply.status >= 200 && reply.status < 300)
      return ApiResponse{reply.status, std::move(reply.body), std::move(reply.content_type)};
    if (impl_->retry_after_failure(reply.status, reply.retry_after, attempts, reauthenticated,
                                   method, target)) {
      continue;
    }
    throw error_from_reply(reply.status, reply.reason_phrase, reply.body, reply.retry_after);
  }
}

ApiResponse ApiClient::get(std::string_view path_and_query) {
  return request("GET", path_and_query);
}

ApiResponse ApiClient::post(std::string_view path, std::string_view json) {
  return request("POST", path, json, "application/json");
}

ApiResponse ApiClient::put(std::string_view path, std::string_view json) {
  return request("PUT", path, json, "application/json");
}

ApiResponse ApiClient::patch(std::string_view path, PatchType type, std::string_view body) {
  std::string_view content_type;
  switch (type) {
    case PatchType::merge:
      content_type = "application/merge-patch+json";
      break;
    case PatchType::json:
      content_type = "application/json-patch+json";
      break;
    case PatchType::strategic:
      content_type = "application/strategic-merge-patch+json";
      break;
  }
  return request("PATCH", path, body, content_type);
}

ApiResponse ApiClient::remove(std::string_view path) {
  return request("DELETE", path);
}

void ApiClient::watch(std::string_view path_and_query,
                      const std::function<bool(std::string_view line)>& on_line,
                      std::stop_token stop) {
  const std::string target = impl_->base_path + std::string(path_and_query);
  const auto timeout = watch_timeout(path_and_query);
  const std::chrono::milliseconds idle_limit = std::max<std::chrono::milliseconds>(
      config_.request_timeout, timeout ? *timeout + kWatchIdleMargin : kWatchIdleDefault);

  // The socket of the open watch, shut down from the stopping thread: a
  // blocked read then returns at once. Set only once the connection exists.
  struct StopState {
    std::mutex mu;
    int fd = -1;
    bool stopped = false;
  } state;
  const std::stop_callback on_stop(stop, [&state] {
    std::lock_guard lock(state.mu);
    state.stopped = true;
    if (state.fd >= 0)
      ::shutdown(state.fd, SHUT_RDWR);
  });
  const auto publish = [&state](Connection& c) {
    std::lock_guard lock(state.mu);
    state.fd = c.session->socket().impl()->sockfd();
    if (state.stopped)
      ::shutdown(state.fd, SHUT_RDWR);
  };
  const auto forget = [&state] {
    std::lock_guard lock(state.mu);
    state.fd = -1;
  };
  // Unpublishes the socket before its connection closes, on every way out
  // (including an exception from on_line): a late stop must never shut down
  // a descriptor number the process has reused.
  struct Unpublish {
    const std::function<void()> run;
    ~Unpublish() { run(); }
  };

  bool reauthenticated = false;
  for (int attempts = 1;; ++attempts) {
    if (stop.stop_requested())
      return;
    impl_->throttle();
    if (stop.stop_requested())
      return;
    Impl::Opened opened;
    const Unpublish unpublish{forget};
    try {
      impl_->open(opened, "GET", target, {}, {}, false, idle_limit, publish);
    } catch (const ApiError&) {
      forget();
      if (stop.stop_requested())
        return;
      throw;
    }
    const Poco::Net::HTTPResponse& response = opened.response;
    const int status = static_cast<int>(response.getStatus());
    HttpBodyReader reader = body_reader(*opened.connection, response, "GET");

    if (status != 200) {
      std::string body;
      try {
        body = reader.read_all();
      } catch (const std::exception&) {
        // The status line is the answer; a cut error body only loses detail.
      }
      forget();
      if (stop.stop_requested())
        return;
      std::optional<std::chrono::seconds> retry_after;
      if (response.has("Retry-After"))
        retry_after = parse_retry_after(response.get("Retry-After"));
      if (impl_->retry_after_failure(status, retry_after, attempts, reauthenticated, "GET", target,
                                     stop)) {
        continue;  // the loop's head returns if the wait ended by a stop
      }
      throw error_from_reply(status, response.getReason(), body, retry_after);
    }

    std::string pending;
    std::string buffer(64 * 1024, '\0');
    for (;;) {
      size_t n = 0;
      try {
        n = reader.read(buffer.data(), buffer.size());
      } catch (const std::exception& e) {
        forget();
        if (stop.stop_requested())
          return;
        if (dynamic_cast<const HttpBodyError*>(&e) != nullptr) {
          throw ApiError(0, "", "watch " + config_.server + target + ": stream cut: " + e.what());
        }
        impl_->transport_failure("GET", target, e);
      }
      if (n == 0) {
        forget();
        // A shutdown for stop can look like the end of an unframed body.
        if (!pending.empty() && !stop.stop_requested())
          on_line(pending);
        return;
      }
      pending.append(buffer.data(), n);
      size_t start = 0;
      for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string_view line(pending.data() + start, nl - start);
        if (!line.empty() && line.back() == '\r')
          line.remove_suffix(1);
        if (line.empty())
          continue;
        if (!on_line(line) || stop.stop_requested()) {
          forget();
          return;
        }
      }
      pending.erase(0, start);
    }
  }
}

ApiClientStats ApiClient::stats() const {
  return ApiClientStats{impl_->requests.load(std::memory_order_relaxed),
                        impl_->retries.load(std::memory_order_relaxed),
                        impl_->throttle_waits.load(std::memory_order_relaxed)};
}

}  // namespace hami::kube
