#include "server/https_server.hpp"

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include <csignal>
#include <optional>
#include <thread>

#include "server/connection_context.hpp"
#include "server/http_connection.hpp"
#include "server/overload_guard.hpp"

namespace hami::server {
namespace {

constexpr int kListenBacklog = 256;
// After the grace period, aborted connections get this long to unwind
// before the server objects are destroyed.
constexpr auto kUnwindBound = std::chrono::seconds(5);
constexpr auto kUnwindPoll = std::chrono::milliseconds(10);

}  // namespace

struct HttpsServer::Impl {
  ServerTls tls;
  const log::Logger& logger;
  std::shared_ptr<ConnectionContext> context = std::make_shared<ConnectionContext>();
  std::shared_ptr<BusyResponder> busy;
  Poco::Net::SecureServerSocket socket;
  Poco::ThreadPool pool;
  std::optional<Poco::Net::TCPServer> tcp;
  uint16_t port = 0;
  std::string address;
  bool started = false;
  bool stopped = false;

  Impl(ServerTls t, const config::ServerConfig& settings, const log::Logger& l)
      : tls(std::move(t)),
        logger(l),
        busy(std::make_shared<BusyResponder>(limits_of(settings))),
        socket(tls.context),
        pool(1, settings.max_threads, 60) {}
};

HttpsServer::HttpsServer(std::shared_ptr<const Router> router, ServerTls tls,
                         const config::ListenAddress& listen, const config::ServerConfig& settings,
                         const log::Logger& logger)
    : impl_(std::make_unique<Impl>(std::move(tls), settings, logger)) {
  std::signal(SIGPIPE, SIG_IGN);
  try {
    const Poco::Net::SocketAddress address(listen.host, listen.port);
    // reuseAddress for quick restarts, but never SO_REUSEPORT: a second
    // process must not be able to share (and steal from) our port.
    impl_->socket.bind(address, true, false);
    impl_->socket.listen(kListenBacklog);
    impl_->port = impl_->socket.address().port();
    impl_->address = impl_->socket.address().toString();
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("cannot listen on " + listen.text() + ": " + e.displayText());
  }
  auto params = Poco::makeAuto<Poco::Net::HTTPServerParams>();
  params->setMaxThreads(settings.max_threads);
  // The OverloadGuard admits at most max_threads + max_queued connections,
  // so Poco's own queue limit (which drops silently) is never reached.
  params->setMaxQueued(settings.max_threads + settings.max_queued + 1);
  params->setTimeout(Poco::Timespan(settings.read_timeout_seconds, 0));
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(settings.keep_alive_timeout_seconds, 0));
  params->setMaxKeepAliveRequests(0);  // unlimited
  ConnectionContext& ctx = *impl_->context;
  ctx.router = std::move(router);
  ctx.params = params;
  ctx.limits = limits_of(settings);
  auto factory = Poco::makeShared<HttpConnectionFactory>(impl_->context);
  impl_->tcp.emplace(factory, impl_->pool, impl_->socket, params);
  impl_->tcp->setConnectionFilter(Poco::makeAuto<OverloadGuard>(impl_->context, impl_->busy));
}

HttpsServer::~HttpsServer() {
  try {
    shutdown(std::chrono::milliseconds(0));
  } catch (...) {
    // Destructors must not throw; shutdown failures were already logged.
  }
}

void HttpsServer::start() {
  if (impl_->started)
    return;
  impl_->tcp->start();
  impl_->started = true;
}

uint16_t HttpsServer::port() const {
  return impl_->port;
}

std::string HttpsServer::address() const {
  return impl_->address;
}

int HttpsServer::in_flight() const {
  const std::lock_guard lock(impl_->context->traffic.mutex);
  return impl_->context->traffic.in_flight;
}

int HttpsServer::total_connections() const {
  return impl_->tcp->totalConnections();
}

int HttpsServer::refused_connections() const {
  return impl_->context->refused.load();
}

int HttpsServer::cut_connections() const {
  return impl_->context->watch.cut();
}

const ServerTls& HttpsServer::tls() const {
  return impl_->tls;
}

bool HttpsServer::shutdown(std::chrono::milliseconds grace) {
  if (impl_->stopped)
    return true;
  impl_->stopped = true;
  Traffic& traffic = impl_->context->traffic;
  traffic.draining.store(true);
  // Stop accepting: the acceptor thread ends and the listening socket
  // closes, so new connections are refused rather than queued.
  impl_->tcp->stop();
  impl_->socket.close();

  bool finished = false;
  {
    std::unique_lock lock(traffic.mutex);
    finished = traffic.idle.wait_for(lock, grace, [&] { return traffic.in_flight == 0; });
  }
  if (!finished) {
    impl_->logger.warn("shutdown grace period over; aborting in-flight requests",
                       {{"in_flight", std::to_string(traffic.in_flight)}});
  }
  // Wakes connections idling in keep-alive (and aborts any still running).
  impl_->context->watch.abort_all();
  const auto deadline = std::chrono::steady_clock::now() + kUnwindBound;
  while (impl_->tcp->currentConnections() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kUnwindPoll);
  }
  return finished;
}

}  // namespace hami::server
