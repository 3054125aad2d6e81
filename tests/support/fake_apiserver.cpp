#include "fake_apiserver.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/X509Certificate.h>
#include <Poco/StreamCopier.h>
#include <Poco/ThreadPool.h>
#include <Poco/URI.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <stdexcept>
#include <thread>

#include "fake_kinds.hpp"
#include "fake_query.hpp"
#include "fake_rest.hpp"
#include "fake_server_state.hpp"
#include "fake_status.hpp"
#include "fake_watch.hpp"
#include "server/openssl_handles.hpp"
#include "server/tls_context.hpp"

namespace hami::testing {
namespace {

using fake::Json;
using fake::ServerState;

// Connections are kept per thread for their whole life (keep-alive and
// watches), so the pool must exceed the number of concurrent clients.
constexpr int kMaxThreads = 256;

std::string media_type(const std::string& content_type) {
  std::string t = content_type.substr(0, content_type.find(';'));
  while (!t.empty() && t.back() == ' ') {
    t.pop_back();
  }
  return t;
}

// Clients must present a certificate that chains to one of `ca_pem`'s.
void require_client_certificates(SSL_CTX* ctx, const std::string& ca_pem) {
  server::BioPtr bio(BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size())));
  int added = 0;
  while (bio) {
    server::X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert)
      break;
    if (X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), cert.get()) != 1 ||
        SSL_CTX_add_client_CA(ctx, cert.get()) != 1) {
      throw std::runtime_error("FakeApiServer: cannot trust the client CA: " +
                               server::openssl_errors());
    }
    ++added;
  }
  ERR_clear_error();
  if (added == 0)
    throw std::invalid_argument("FakeApiServer: client_ca_pem holds no PEM certificate");
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
}

// The subject CN of the request's verified client certificate, if any.
std::string client_common_name(Poco::Net::HTTPServerRequest& request) {
  auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  if (impl == nullptr)
    return {};
  try {
    Poco::Net::SecureStreamSocket secure(impl->socket());
    if (!secure.havePeerCertificate())
      return {};
    return secure.peerCertificate().commonName();
  } catch (const Poco::Exception&) {
    return {};  // a plain socket: no client certificate
  }
}

// Counts running handlers so the destructor can wait for them.
class ActiveHandler {
 public:
  explicit ActiveHandler(ServerState& state) : state_(state) {
    std::lock_guard lock(state_.mu);
    ++state_.active_handlers;
  }
  ~ActiveHandler() {
    std::lock_guard lock(state_.mu);
    --state_.active_handlers;
    state_.changed.notify_all();
  }
  ActiveHandler(const ActiveHandler&) = delete;
  ActiveHandler& operator=(const ActiveHandler&) = delete;

 private:
  ServerState& state_;
};

class RequestHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit RequestHandler(ServerState& state) : state_(state) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    ActiveHandler active(state_);
    RecordedRequest record;
    record.method = request.getMethod();
    try {
      Poco::URI uri(request.getURI());
      record.path = uri.getPath();
      record.query = uri.getRawQuery();
    } catch (const Poco::Exception&) {
      record.path = request.getURI();
    }
    record.content_type = request.get("Content-Type", "");
    record.authorization = request.get("Authorization", "");
    record.client_cn = client_common_name(request);
    Poco::StreamCopier::copyToString(request.stream(), record.body);
    const fake::Query query(record.query);
    record.watch = record.method == "GET" && query.flag("watch");

    std::optional<fake::FaultRule> fault;
    {
      std::lock_guard lock(state_.mu);
      if (state_.refusing) {
        state_.requests.push_back(record);
        refuse(request, response);
        return;
      }
      if (!state_.token.empty() && record.authorization != "Bearer " + state_.token) {
        fault = fake::FaultRule{"", "", 401, 0, std::nullopt};
      } else {
        for (fake::FaultRule& rule : state_.faults) {
          if (rule.remaining > 0 && (rule.method.empty() || rule.method == record.method) &&
              record.path.starts_with(rule.path_prefix)) {
            --rule.remaining;
            fault = rule;
            break;
          }
        }
      }
    }
    const auto route = fake::parse_route(record.path);
    if (fault && fault->after_applying && route && !record.watch) {
      fake::RestRequest rest{record.method, *route, &query, media_type(record.content_type),
                             record.body};
      fake::handle_rest(state_, rest);
    }
    if (fault) {
      const std::string name = route ? route->name : std::string();
      const std::string resource = route ? route->kind->qualified_resource() : std::string();
      Json body =
          fault->status == 401 ? fake::status_unauthorized()
          : fault->status == 403 && route
              ? fake::status_forbidden(record.method, *route, record.watch)
              : fake::status_fault(fault->status, fault->retry_after_seconds, resource, name);
      reply(response, std::move(record), fault->status, body, fault->retry_after_seconds);
      return;
    }
    if (!route) {
      reply(response, std::move(record), 404, fake::status_unknown_path(), std::nullopt);
      return;
    }
    if (record.watch) {
      if (!route->name.empty() || !route->subresource.empty() || route->legacy_bindings) {
        reply(response, std::move(record), 405,
              fake::status_failure(405, "MethodNotAllowed",
                                   "the server does not allow this method on the requested "
                                   "resource"),
              std::nullopt);
        return;
      }
      fake::serve_watch(state_, *route, query, request, response, std::move(record));
      return;
    }
    fake::RestRequest rest{record.method, *route, &query, media_type(record.content_type),
                           record.body};
    fake::Reply result = fake::handle_rest(state_, rest);
    reply(response, std::move(record), result.status, result.body, std::nullopt);
  }

 private:
  // Closes the connection without an answer, as a server that went away.
  void refuse(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
    response.setKeepAlive(false);
    try {
      dynamic_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket().shutdown();
    } catch (const Poco::Exception&) {
    }
  }

  void reply(Poco::Net::HTTPServerResponse& response, RecordedRequest record, int status,
             const Json& body, std::optional<int> retry_after) {
    if (!record.watch) {
      std::unique_lock lock(state_.mu);
      const auto latency = state_.latency;
      if (latency.count() > 0) {
        state_.changed.wait_for(lock, latency, [&] { return state_.stopping; });
      }
    }
    const std::string text = body.dump();
    response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
    response.setContentType("application/json");
    if (retry_after) {
      response.set("Retry-After", std::to_string(*retry_after));
    }
    response.setContentLength(static_cast<std::streamsize>(text.size()));
    {
      std::lock_guard lock(state_.mu);
      record.status = status;
      state_.requests.push_back(std::move(record));
    }
    response.send() << text;
  }

  ServerState& state_;
};

class HandlerFactory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit HandlerFactory(ServerState& state) : state_(state) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    // Poco takes ownership of the handler.
    return std::make_unique<RequestHandler>(state_).release();
  }

 private:
  ServerState& state_;
};

class RefuseFilter : public Poco::Net::TCPServerConnectionFilter {
 public:
  explicit RefuseFilter(ServerState& state) : state_(state) {}
  bool accept(const Poco::Net::StreamSocket&) override {
    std::lock_guard lock(state_.mu);
    return !state_.refusing && !state_.stopping;
  }

 private:
  ServerState& state_;
};

// Connects to the listening port every few milliseconds until destroyed
// (bounded to one second).
class AcceptorWaker {
 public:
  explicit AcceptorWaker(uint16_t port)
      : thread_([port](std::stop_token stop) {
          const Poco::Net::SocketAddress address("127.0.0.1", port);
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
          while (!stop.stop_requested() && std::chrono::steady_clock::now() < deadline) {
            try {
              Poco::Net::StreamSocket socket;
              socket.connect(address, Poco::Timespan(0, 100000));
            } catch (const Poco::Exception&) {
              // Refused once the listening socket is gone: nothing to wake.
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
          }
        }) {}

 private:
  std::jthread thread_;
};

}  // namespace

struct FakeApiServer::Impl {
  explicit Impl(FakeApiServerOptions opts) : options(std::move(opts)), state(options) {}

  FakeApiServerOptions options;
  ServerState state;
  std::optional<server::ServerTls> tls;
  Poco::ThreadPool pool{2, kMaxThreads, 60};
  std::unique_ptr<Poco::Net::HTTPServer> server;
  uint16_t port = 0;
};

FakeApiServer::FakeApiServer(FakeApiServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  const Poco::Net::SocketAddress address("127.0.0.1", 0);
  std::unique_ptr<Poco::Net::ServerSocket> socket;
  if (impl_->options.tls) {
    config::TlsConfig tls_config;
    tls_config.self_signed = true;
    // Every connection handshakes in full, so each shows its own client
    // certificate.
    tls_config.session_resumption = impl_->options.client_ca_pem.empty();
    impl_->tls = server::make_server_tls(tls_config);
    if (!impl_->options.client_ca_pem.empty())
      require_client_certificates(impl_->tls->context->sslContext(), impl_->options.client_ca_pem);
    socket = std::make_unique<Poco::Net::SecureServerSocket>(address, 64, impl_->tls->context);
  } else {
    socket = std::make_unique<Poco::Net::ServerSocket>(address, 64);
  }
  impl_->port = socket->address().port();
  auto params = Poco::makeAuto<Poco::Net::HTTPServerParams>();
  params->setMaxThreads(kMaxThreads);
  params->setMaxQueued(1024);
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(30, 0));
  params->setTimeout(Poco::Timespan(30, 0));
  impl_->server = std::make_unique<Poco::Net::HTTPServer>(
      Poco::makeShared<HandlerFactory>(impl_->state), impl_->pool, *socket, params);
  impl_->server->setConnectionFilter(Poco::makeAuto<RefuseFilter>(impl_->state));
  impl_->server->start();
}

FakeApiServer::~FakeApiServer() {
  {
    std::lock_guard lock(impl_->state.mu);
    impl_->state.stopping = true;
    impl_->state.changed.notify_all();
  }
  {
    // Poco's accept loop notices a stop only when its 250 ms poll returns;
    // connections (turned away by the filter) wake it at once, which makes
    // tests that start many servers much faster.
    AcceptorWaker waker(impl_->port);
    // Shuts every connection down, so idle keep-alive readers return too.
    impl_->server->stopAll(true);
  }
  {
    std::unique_lock lock(impl_->state.mu);
    impl_->state.changed.wait_for(lock, std::chrono::seconds(10),
                                  [&] { return impl_->state.active_handlers == 0; });
  }
  impl_->server.reset();
  impl_->pool.joinAll();
}

std::string FakeApiServer::url() const {
  return std::string(impl_->options.tls ? "https" : "http") +
         "://127.0.0.1:" + std::to_string(impl_->port);
}

uint16_t FakeApiServer::port() const {
  return impl_->port;
}

std::string FakeApiServer::ca_pem() const {
  return impl_->tls ? impl_->tls->certificate_pem : std::string();
}

std::string FakeApiServer::apply(std::string_view object_json) {
  Json object = Json::parse(object_json, nullptr, false);
  if (object.is_discarded() || !object.is_object()) {
    throw std::invalid_argument("FakeApiServer::apply: not a JSON object");
  }
  const fake::KindInfo* kind = fake::kind_by_name(
      object.contains("kind") && object["kind"].is_string() ? object["kind"].get<std::string>()
                                                            : std::string());
  if (kind == nullptr) {
    throw std::invalid_argument("FakeApiServer::apply: missing or unserved kind");
  }
  if (fake::meta_string(object, "name").empty()) {
    throw std::invalid_argument("FakeApiServer::apply: metadata.name is required");
  }
  if (kind->namespaced && fake::meta_string(object, "namespace").empty()) {
    fake::metadata(object)["namespace"] = "default";
  }
  std::lock_guard lock(impl_->state.mu);
  auto stored = impl_->state.store.put(*kind, std::move(object));
  impl_->state.changed.notify_all();
  return fake::meta_string(*stored, "resourceVersion");
}

bool FakeApiServer::remove(std::string_view kind, std::string_view namespace_,
                           std::string_view name) {
  const fake::KindInfo* info = fake::kind_by_name(kind);
  if (info == nullptr) {
    return false;
  }
  std::lock_guard lock(impl_->state.mu);
  const bool removed = impl_->state.store.erase(*info, namespace_, name) != nullptr;
  impl_->state.changed.notify_all();
  return removed;
}

std::optional<std::string> FakeApiServer::object(std::string_view kind, std::string_view namespace_,
                                                 std::string_view name) const {
  const fake::KindInfo* info = fake::kind_by_name(kind);
  if (info == nullptr) {
    return std::nullopt;
  }
  std::lock_guard lock(impl_->state.mu);
  const Json* object = impl_->state.store.find(*info, namespace_, name);
  if (object == nullptr) {
    return std::nullopt;
  }
  return object->dump();
}

std::vector<std::string> FakeApiServer::objects(std::string_view kind) const {
  std::vector<std::string> out;
  const fake::KindInfo* info = fake::kind_by_name(kind);
  if (info == nullptr) {
    return out;
  }
  std::lock_guard lock(impl_->state.mu);
  for (const auto& object : impl_->state.store.all(*info)) {
    out.push_back(object->dump());
  }
  return out;
}

uint64_t FakeApiServer::revision() const {
  std::lock_guard lock(impl_->state.mu);
  return impl_->state.store.revision();
}

std::vector<RecordedRequest> FakeApiServer::requests() const {
  std::lock_guard lock(impl_->state.mu);
  return impl_->state.requests;
}

void FakeApiServer::clear_requests() {
  std::lock_guard lock(impl_->state.mu);
  impl_->state.requests.clear();
}

size_t FakeApiServer::open_watches() const {
  std::lock_guard lock(impl_->state.mu);
  return impl_->state.watches.size();
}

bool FakeApiServer::wait_open_watches(size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(impl_->state.mu);
  return impl_->state.changed.wait_for(lock, timeout,
                                       [&] { return impl_->state.watches.size() >= count; });
}

void FakeApiServer::drop_watches() {
  std::lock_guard lock(impl_->state.mu);
  for (auto& slot : impl_->state.watches) {
    slot->drop = true;
  }
  impl_->state.changed.notify_all();
}

void FakeApiServer::compact() {
  std::lock_guard lock(impl_->state.mu);
  impl_->state.store.compact();
  impl_->state.changed.notify_all();
}

void FakeApiServer::send_watch_error(int code, std::string_view reason, std::string_view message) {
  std::lock_guard lock(impl_->state.mu);
  for (auto& slot : impl_->state.watches) {
    slot->error = fake::status_failure(code, reason, message);
  }
  impl_->state.changed.notify_all();
}

void FakeApiServer::send_bookmarks() {
  std::lock_guard lock(impl_->state.mu);
  for (auto& slot : impl_->state.watches) {
    if (slot->bookmarks) {
      slot->bookmark_pending = true;
    }
  }
  impl_->state.changed.notify_all();
}

void FakeApiServer::fail_next(std::string method, std::string path_prefix, int status, int count,
                              std::optional<int> retry_after_seconds) {
  std::lock_guard lock(impl_->state.mu);
  impl_->state.faults.push_back(fake::FaultRule{std::move(method), std::move(path_prefix), status,
                                                count, retry_after_seconds});
}

void FakeApiServer::fail_next_after_applying(std::string method, std::string path_prefix,
                                             int status, int count) {
  std::lock_guard lock(impl_->state.mu);
  impl_->state.faults.push_back(fake::FaultRule{std::move(method), std::move(path_prefix), status,
                                                count, std::nullopt, true});
}

void FakeApiServer::set_latency(std::chrono::milliseconds latency) {
  std::lock_guard lock(impl_->state.mu);
  impl_->state.latency = latency;
}

void FakeApiServer::set_token(std::string token) {
  std::lock_guard lock(impl_->state.mu);
  impl_->state.token = std::move(token);
}

void FakeApiServer::set_refusing(bool refusing) {
  std::lock_guard lock(impl_->state.mu);
  impl_->state.refusing = refusing;
}

}  // namespace hami::testing
