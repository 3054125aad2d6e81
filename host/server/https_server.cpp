#include "server/https_server.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/ThreadPool.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace hami::server {
namespace {

constexpr int kListenBacklog = 256;
// After the grace period, aborted connections get this long to unwind
// before the server objects are destroyed.
constexpr auto kUnwindBound = std::chrono::seconds(5);
constexpr auto kUnwindPoll = std::chrono::milliseconds(10);

// Counts requests inside the router so shutdown can wait for them, and
// tells handlers to close connections once draining begins.
struct Traffic {
  std::atomic<bool> draining{false};
  std::mutex mutex;
  std::condition_variable idle;
  int in_flight = 0;

  void enter() {
    const std::lock_guard lock(mutex);
    ++in_flight;
  }
  void leave() {
    {
      const std::lock_guard lock(mutex);
      --in_flight;
    }
    idle.notify_all();
  }
};

class RouterHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  RouterHandler(std::shared_ptr<const Router> router, std::shared_ptr<Traffic> traffic)
      : router_(std::move(router)), traffic_(std::move(traffic)) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    traffic_->enter();
    struct Leave {
      Traffic& t;
      ~Leave() { t.leave(); }
    } leave{*traffic_};
    router_->dispatch(request, response, traffic_->draining.load());
  }

 private:
  std::shared_ptr<const Router> router_;
  std::shared_ptr<Traffic> traffic_;
};

class RouterHandlerFactory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  RouterHandlerFactory(std::shared_ptr<const Router> router, std::shared_ptr<Traffic> traffic)
      : router_(std::move(router)), traffic_(std::move(traffic)) {}

  // Poco takes ownership of the returned handler.
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return std::make_unique<RouterHandler>(router_, traffic_).release();
  }

 private:
  std::shared_ptr<const Router> router_;
  std::shared_ptr<Traffic> traffic_;
};

}  // namespace

struct HttpsServer::Impl {
  ServerTls tls;
  const log::Logger& logger;
  std::shared_ptr<Traffic> traffic = std::make_shared<Traffic>();
  Poco::Net::SecureServerSocket socket;
  Poco::ThreadPool pool;
  std::optional<Poco::Net::HTTPServer> http;
  uint16_t port = 0;
  std::string address;
  bool started = false;
  bool stopped = false;

  Impl(ServerTls t, const config::ServerConfig& settings, const log::Logger& l)
      : tls(std::move(t)), logger(l), socket(tls.context), pool(1, settings.max_threads, 60) {}
};

HttpsServer::HttpsServer(std::shared_ptr<const Router> router, ServerTls tls,
                         const config::ListenAddress& listen, const config::ServerConfig& settings,
                         const log::Logger& logger)
    : impl_(std::make_unique<Impl>(std::move(tls), settings, logger)) {
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
  params->setMaxQueued(settings.max_queued);
  params->setTimeout(Poco::Timespan(settings.read_timeout_seconds, 0));
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(settings.keep_alive_timeout_seconds, 0));
  params->setMaxKeepAliveRequests(0);  // unlimited
  auto factory = Poco::makeShared<RouterHandlerFactory>(std::move(router), impl_->traffic);
  impl_->http.emplace(factory, impl_->pool, impl_->socket, params);
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
  impl_->http->start();
  impl_->started = true;
}

uint16_t HttpsServer::port() const {
  return impl_->port;
}

std::string HttpsServer::address() const {
  return impl_->address;
}

int HttpsServer::in_flight() const {
  const std::lock_guard lock(impl_->traffic->mutex);
  return impl_->traffic->in_flight;
}

int HttpsServer::total_connections() const {
  return impl_->http->totalConnections();
}

const ServerTls& HttpsServer::tls() const {
  return impl_->tls;
}

bool HttpsServer::shutdown(std::chrono::milliseconds grace) {
  if (impl_->stopped)
    return true;
  impl_->stopped = true;
  Traffic& traffic = *impl_->traffic;
  traffic.draining.store(true);
  // Stop accepting: the acceptor thread ends and the listening socket
  // closes, so new connections are refused rather than queued.
  impl_->http->stop();
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
  impl_->http->stopAll(true);
  const auto deadline = std::chrono::steady_clock::now() + kUnwindBound;
  while (impl_->http->currentConnections() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kUnwindPoll);
  }
  return finished;
}

}  // namespace hami::server
