#include "observability/instruments.hpp"

#include <cmath>
#include <mutex>
#include <stdexcept>

namespace hami::observability {

Histogram::Histogram(std::span<const double> bounds)
    : bounds_(bounds), counts_(std::make_unique<std::atomic<uint64_t>[]>(bounds.size() + 1)) {}

void Histogram::observe(double value) noexcept {
  if (std::isnan(value))
    return;
  // First bound >= value; past the end is the +Inf bucket.
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  const auto bucket = static_cast<size_t>(it - bounds_.begin());
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

void Histogram::snapshot(Series& out) const {
  out.buckets.clear();
  out.buckets.reserve(bounds_.size());
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    out.buckets.push_back({bounds_[i], cumulative});
  }
  cumulative += counts_[bounds_.size()].load(std::memory_order_relaxed);
  out.count = cumulative;
  out.sum = sum_.load(std::memory_order_relaxed);
}

std::vector<double> latency_buckets() {
  return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

std::vector<double> exponential_buckets(double start, double factor, size_t count) {
  if (!(start > 0) || !(factor > 1) || count == 0)
    throw std::invalid_argument("exponential_buckets: start > 0, factor > 1, count > 0");
  std::vector<double> out;
  out.reserve(count);
  double bound = start;
  for (size_t i = 0; i < count; ++i) {
    out.push_back(bound);
    bound *= factor;
  }
  return out;
}

template <class T>
Family<T>::Family(std::string name, std::string help, MetricType type,
                  std::vector<std::string> label_names, std::vector<double> bounds)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)),
      bounds_(std::move(bounds)) {
  MetricFamily probe;
  probe.name = name_;
  probe.type = type_;
  probe.label_names = label_names_;
  validate_family(probe);
  if constexpr (std::is_same_v<T, Histogram>) {
    for (size_t i = 0; i < bounds_.size(); ++i) {
      if (!std::isfinite(bounds_[i]) || (i > 0 && !(bounds_[i] > bounds_[i - 1])))
        throw std::invalid_argument(name_ + ": bucket bounds must be finite and increasing");
    }
  }
}

template <class T>
T& Family<T>::labels(std::initializer_list<std::string_view> values) {
  return labels(std::span<const std::string_view>(values.begin(), values.size()));
}

template <class T>
T& Family<T>::labels(std::span<const std::string_view> values) {
  if (values.size() != label_names_.size()) {
    throw std::invalid_argument(name_ + ": " + std::to_string(values.size()) +
                                " label values for " + std::to_string(label_names_.size()) +
                                " labels");
  }
  {
    const std::shared_lock lock(mu_);
    const auto it = series_.find(values);
    if (it != series_.end())
      return *it->second;
  }
  const std::unique_lock lock(mu_);
  auto it = series_.find(values);
  if (it == series_.end()) {
    std::unique_ptr<T> instrument;
    if constexpr (std::is_same_v<T, Histogram>) {
      instrument = std::make_unique<T>(std::span<const double>(bounds_));
    } else {
      instrument = std::make_unique<T>();
    }
    it = series_
             .emplace(std::vector<std::string>(values.begin(), values.end()), std::move(instrument))
             .first;
  }
  return *it->second;
}

template <class T>
MetricFamily Family<T>::snapshot() const {
  MetricFamily out;
  out.name = name_;
  out.help = help_;
  out.type = type_;
  out.label_names = label_names_;
  const std::shared_lock lock(mu_);
  out.series.reserve(series_.size());
  for (const auto& [values, instrument] : series_) {
    Series s;
    s.label_values = values;
    instrument->snapshot(s);
    out.series.push_back(std::move(s));
  }
  return out;
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

}  // namespace hami::observability
