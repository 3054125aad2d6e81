#include "observability/metrics_listener.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/ThreadPool.h>

#include <optional>
#include <stdexcept>

#include "observability/metrics_routes.hpp"
#include "server/router.hpp"

namespace hami::observability {
namespace {

constexpr int kListenBacklog = 64;

class RouterHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit RouterHandler(std::shared_ptr<const server::Router> router)
      : router_(std::move(router)) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    router_->dispatch(request, response, false);
  }

 private:
  std::shared_ptr<const server::Router> router_;
};

class RouterHandlerFactory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit RouterHandlerFactory(std::shared_ptr<const server::Router> router)
      : router_(std::move(router)) {}
  // Poco takes ownership of the returned handler.
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return std::make_unique<RouterHandler>(router_).release();
  }

 private:
  std::shared_ptr<const server::Router> router_;
};

}  // namespace

struct MetricsListener::Impl {
  Poco::Net::ServerSocket socket;
  Poco::ThreadPool pool;
  std::optional<Poco::Net::HTTPServer> http;
  uint16_t port = 0;
  std::string address;
  bool started = false;
  bool stopped = false;

  explicit Impl(int max_threads) : pool(1, max_threads, 60) {}
};

MetricsListener::MetricsListener(const MetricsRegistry& registry,
                                 const config::ListenAddress& listen,
                                 MetricsListenerOptions options, const log::Logger* logger)
    : impl_(std::make_unique<Impl>(options.max_threads)) {
  try {
    const Poco::Net::SocketAddress address =
        listen.host.empty() ? Poco::Net::SocketAddress(listen.port)
                            : Poco::Net::SocketAddress(listen.host, listen.port);
    // SO_REUSEADDR for quick restarts, but not SO_REUSEPORT (Poco's
    // two-argument bind sets both): a second process must not be able to
    // share the port and take half of the scrapes.
    impl_->socket.bind(address, true, false);
    impl_->socket.listen(kListenBacklog);
    impl_->port = impl_->socket.address().port();
    impl_->address = impl_->socket.address().toString();
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("cannot listen for metrics on " + listen.text() + ": " +
                             e.displayText());
  }
  auto router = std::make_shared<server::Router>(logger);
  register_metrics_routes(*router, registry, logger);
  auto params = Poco::makeAuto<Poco::Net::HTTPServerParams>();
  params->setMaxThreads(options.max_threads);
  params->setMaxQueued(options.max_queued);
  params->setTimeout(Poco::Timespan(options.read_timeout.count(), 0));
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(options.keep_alive_timeout.count(), 0));
  impl_->http.emplace(Poco::makeShared<RouterHandlerFactory>(std::move(router)), impl_->pool,
                      impl_->socket, params);
}

MetricsListener::~MetricsListener() {
  try {
    stop();
  } catch (...) {
    // Destructors must not throw; nothing is left to clean up.
  }
}

void MetricsListener::start() {
  if (impl_->started || impl_->stopped)
    return;
  impl_->http->start();
  impl_->started = true;
}

void MetricsListener::stop() {
  if (impl_->stopped)
    return;
  impl_->stopped = true;
  // Aborts idle keep-alive connections too; a scrape has nothing worth
  // draining for. stopAll waits for the handler threads to finish.
  impl_->http->stopAll(true);
  impl_->socket.close();
  impl_->pool.joinAll();
}

uint16_t MetricsListener::port() const {
  return impl_->port;
}

std::string MetricsListener::address() const {
  return impl_->address;
}

}  // namespace hami::observability
