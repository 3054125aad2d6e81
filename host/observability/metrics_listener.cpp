#include "observability/metrics_listener.hpp"

#include "observability/metrics_routes.hpp"
#include "server/https_server.hpp"
#include "server/router.hpp"

namespace hami::observability {

struct MetricsListener::Impl {
  log::Logger quiet{log::Level::error};
  std::unique_ptr<server::HttpsServer> http;
  bool started = false;
  bool stopped = false;
};

MetricsListener::MetricsListener(const MetricsRegistry& registry,
                                 const config::ListenAddress& listen,
                                 MetricsListenerOptions options, const log::Logger* logger)
    : impl_(std::make_unique<Impl>()) {
  auto router = std::make_shared<server::Router>(logger);
  register_metrics_routes(*router, registry, logger);
  config::ServerConfig settings;
  settings.max_threads = options.max_threads;
  settings.max_queued = options.max_queued;
  settings.read_timeout_seconds = static_cast<int>(options.read_timeout.count());
  settings.keep_alive_timeout_seconds = static_cast<int>(options.keep_alive_timeout.count());
  try {
    // A ServerTls without a context serves plain HTTP.
    impl_->http =
        std::make_unique<server::HttpsServer>(std::move(router), server::ServerTls{}, listen,
                                              settings, logger != nullptr ? *logger : impl_->quiet);
  } catch (const std::runtime_error& e) {
    std::string why = e.what();
    const std::string prefix = "cannot listen on ";
    if (why.rfind(prefix, 0) == 0)
      why = why.substr(prefix.size());
    throw std::runtime_error("cannot listen for metrics on " + why);
  }
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
  // A scrape has nothing worth waiting for.
  impl_->http->shutdown(std::chrono::milliseconds(0));
}

uint16_t MetricsListener::port() const {
  return impl_->http->port();
}

std::string MetricsListener::address() const {
  return impl_->http->address();
}

}  // namespace hami::observability
