#include "observability/metrics_registry.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "observability/exposition.hpp"

namespace hami::observability {

MetricsRegistry::MetricsRegistry() {
  errors_ = &counter("hami_scheduler_metrics_errors_total",
                     "Problems met while serving /metrics: collectors that failed, invalid "
                     "families and duplicate series that were dropped.",
                     {"kind"});
}

void MetricsRegistry::claim_name(const std::string& name) {
  if (std::find(names_.begin(), names_.end(), name) != names_.end())
    throw std::invalid_argument("metric family registered twice: " + name);
  names_.push_back(name);
}

CounterFamily& MetricsRegistry::counter(std::string name, std::string help,
                                        std::vector<std::string> label_names) {
  auto family = std::make_unique<CounterFamily>(std::move(name), std::move(help),
                                                MetricType::counter, std::move(label_names));
  const std::lock_guard lock(mu_);
  claim_name(family->name());
  counters_.push_back(std::move(family));
  return *counters_.back();
}

GaugeFamily& MetricsRegistry::gauge(std::string name, std::string help,
                                    std::vector<std::string> label_names) {
  auto family = std::make_unique<GaugeFamily>(std::move(name), std::move(help), MetricType::gauge,
                                              std::move(label_names));
  const std::lock_guard lock(mu_);
  claim_name(family->name());
  gauges_.push_back(std::move(family));
  return *gauges_.back();
}

HistogramFamily& MetricsRegistry::histogram(std::string name, std::string help,
                                            std::vector<std::string> label_names,
                                            std::vector<double> bounds) {
  auto family =
      std::make_unique<HistogramFamily>(std::move(name), std::move(help), MetricType::histogram,
                                        std::move(label_names), std::move(bounds));
  const std::lock_guard lock(mu_);
  claim_name(family->name());
  histograms_.push_back(std::move(family));
  return *histograms_.back();
}

void MetricsRegistry::add_collector(std::shared_ptr<const Collector> collector,
                                    std::vector<Label> const_labels) {
  if (!collector)
    throw std::invalid_argument("add_collector: null collector");
  for (const Label& l : const_labels) {
    if (!valid_label_name(l.name))
      throw std::invalid_argument("add_collector: invalid const label name " + l.name);
  }
  const std::lock_guard lock(mu_);
  collectors_.push_back({std::move(collector), std::move(const_labels)});
}

std::vector<MetricFamily> MetricsRegistry::gather(std::vector<std::string>* found) const {
  // Families are never removed, so the pointers copied here stay valid
  // after the lock is released; snapshots and collectors run unlocked.
  std::vector<const CounterFamily*> counters;
  std::vector<const GaugeFamily*> gauges;
  std::vector<const HistogramFamily*> histograms;
  std::vector<Registered> collectors;
  {
    const std::lock_guard lock(mu_);
    for (const auto& f : counters_)
      counters.push_back(f.get());
    for (const auto& f : gauges_)
      gauges.push_back(f.get());
    for (const auto& f : histograms_)
      histograms.push_back(f.get());
    collectors = collectors_;
  }

  std::vector<MetricFamily> families;
  std::vector<std::string> problems;
  uint64_t collector_failures = 0;
  for (const Registered& r : collectors) {
    std::vector<MetricFamily> produced;
    try {
      r.collector->collect(produced);
    } catch (const std::exception& e) {
      ++collector_failures;
      problems.push_back(std::string("collector failed: ") + e.what());
      continue;
    }
    for (MetricFamily& f : produced) {
      f.const_labels.insert(f.const_labels.end(), r.const_labels.begin(), r.const_labels.end());
      families.push_back(std::move(f));
    }
  }
  if (collector_failures > 0)
    errors_->labels({"collector"}).inc(collector_failures);

  // Registered families go first: a collector may not take over a
  // registered family's name (normalize keeps the first of a name).
  std::vector<MetricFamily> all;
  all.reserve(counters.size() + gauges.size() + histograms.size() + families.size());
  for (const auto* f : counters)
    all.push_back(f->snapshot());
  for (const auto* f : gauges)
    all.push_back(f->snapshot());
  for (const auto* f : histograms)
    all.push_back(f->snapshot());
  std::move(families.begin(), families.end(), std::back_inserter(all));

  for (std::string& p : normalize(all)) {
    const bool duplicate = p.find("duplicate series") != std::string::npos;
    errors_->labels({duplicate ? "duplicate_series" : "invalid_family"}).inc();
    problems.push_back(std::move(p));
  }
  {
    const std::lock_guard lock(mu_);
    last_problems_ = problems;
  }
  if (found != nullptr)
    *found = std::move(problems);
  return all;
}

std::string MetricsRegistry::scrape(std::vector<std::string>* problems) const {
  return encode_text(gather(problems));
}

std::vector<std::string> MetricsRegistry::last_problems() const {
  const std::lock_guard lock(mu_);
  return last_problems_;
}

}  // namespace hami::observability
