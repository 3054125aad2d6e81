// MetricsListener: the optional plain-HTTP listener for /metrics (HAMi's
// --metrics-bind-address, default :9395; config `metrics.listen`): the
// host's server in plain-text mode serving GET /metrics from a registry
// through a Router, so unknown paths get 404 and other methods 405, as on
// the webhook listener. Metrics are always plain HTTP (HAMi §1.5).
//
// Lifecycle: the constructor binds (so the real port is known, also for
// port 0); start() begins accepting; stop() stops accepting and closes
// every connection; the destructor stops.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "config/host_config.hpp"
#include "log/logger.hpp"
#include "observability/metrics_registry.hpp"

namespace hami::observability {

struct MetricsListenerOptions {
  int max_threads = 2;  // scrapes served at once
  int max_queued = 16;
  std::chrono::seconds read_timeout{15};  // HAMi's read-header timeout
  std::chrono::seconds keep_alive_timeout{15};
};

class MetricsListener {
 public:
  // An empty host binds every IPv4 address (":9395" in HAMi's notation).
  // Throws std::runtime_error naming the address when it cannot bind.
  // `registry` (and `logger`, if given) must outlive the listener.
  MetricsListener(const MetricsRegistry& registry, const config::ListenAddress& listen,
                  MetricsListenerOptions options = {}, const log::Logger* logger = nullptr);
  ~MetricsListener();
  MetricsListener(const MetricsListener&) = delete;
  MetricsListener& operator=(const MetricsListener&) = delete;

  void start();
  // Idempotent.
  void stop();

  uint16_t port() const;
  // The bound address, "127.0.0.1:9395".
  std::string address() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hami::observability
