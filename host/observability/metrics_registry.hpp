// MetricsRegistry: the instrument families and scrape-time collectors one
// process exposes, and the scrape that turns them into the text format.
// An ordinary object owned by the application.
//
// Families are registered once (usually at start-up) and live as long as
// the registry; the references returned stay valid. Registering a name
// twice throws std::invalid_argument.
//
// A scrape (gather/scrape) snapshots every family and runs every
// collector; a collector that throws is counted in
// hami_scheduler_metrics_errors_total{kind="collector"} and skipped, and
// so are problems normalize() finds (kind="invalid_family",
// kind="duplicate_series"). Scrapes may run concurrently with each other
// and with recording.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "observability/collector.hpp"
#include "observability/instruments.hpp"
#include "observability/metric_family.hpp"

namespace hami::observability {

class MetricsRegistry {
 public:
  MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  CounterFamily& counter(std::string name, std::string help, std::vector<std::string> label_names);
  GaugeFamily& gauge(std::string name, std::string help, std::vector<std::string> label_names);
  HistogramFamily& histogram(std::string name, std::string help,
                             std::vector<std::string> label_names, std::vector<double> bounds);

  // Adds a collector, run at every scrape. `const_labels` are added to
  // every family it produces (as Prometheus' WrapRegistererWith does).
  void add_collector(std::shared_ptr<const Collector> collector,
                     std::vector<Label> const_labels = {});

  // Every family, normalized (sorted, deduplicated, valid). `problems`,
  // when given, receives what this scrape found wrong (see above).
  std::vector<MetricFamily> gather(std::vector<std::string>* problems = nullptr) const;
  // gather() as text exposition 0.0.4.
  std::string scrape(std::vector<std::string>* problems = nullptr) const;

  // The problems the last scrape found (collector failures, dropped
  // families or series), for logging; empty when it was clean.
  std::vector<std::string> last_problems() const;

 private:
  struct Registered {
    std::shared_ptr<const Collector> collector;
    std::vector<Label> const_labels;
  };

  void claim_name(const std::string& name);

  mutable std::mutex mu_;  // guards the lists below, never the recording path
  std::vector<std::unique_ptr<CounterFamily>> counters_;
  std::vector<std::unique_ptr<GaugeFamily>> gauges_;
  std::vector<std::unique_ptr<HistogramFamily>> histograms_;
  std::vector<std::string> names_;
  std::vector<Registered> collectors_;
  mutable std::vector<std::string> last_problems_;
  CounterFamily* errors_ = nullptr;
};

}  // namespace hami::observability
