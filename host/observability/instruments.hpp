// Instruments recorded on the request path, and their labelled families.
//
// Recording never takes a lock: every series is a set of atomics, and a
// caller holds on to the series it records into (Family::labels returns a
// reference that stays valid as long as the family). Looking a series up
// takes the family's lock shared; only the first use of a label set takes
// it exclusively, to insert. A scrape reads the atomics under the shared
// lock, so it never waits for recorders and recorders never wait for it.
//
// Consistency: a scrape racing an observation may see a histogram's sum
// without its count (or the reverse) for that one observation; bucket
// counts and the count are always consistent with each other (the count is
// derived from the buckets).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "observability/metric_family.hpp"

namespace hami::observability {

// A monotonically increasing count of events.
class Counter {
 public:
  void inc(uint64_t n = 1) noexcept { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const noexcept { return value_.load(std::memory_order_relaxed); }
  void snapshot(Series& out) const { out.value = static_cast<double>(value()); }

 private:
  std::atomic<uint64_t> value_{0};
};

// A value that goes up and down.
class Gauge {
 public:
  void set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
  void add(double v) noexcept { value_.fetch_add(v, std::memory_order_relaxed); }
  double value() const noexcept { return value_.load(std::memory_order_relaxed); }
  void snapshot(Series& out) const { out.value = value(); }

 private:
  std::atomic<double> value_{0};
};

// Observations counted into buckets with fixed upper bounds (le), plus
// their sum. NaN observations are ignored.
class Histogram {
 public:
  // `bounds` (finite, strictly increasing) must outlive the histogram.
  explicit Histogram(std::span<const double> bounds);

  void observe(double value) noexcept;
  void snapshot(Series& out) const;

 private:
  std::span<const double> bounds_;
  // Per bucket (non-cumulative), the last one is +Inf.
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  std::atomic<double> sum_{0};
};

// Bucket bounds for request latencies in seconds: 0.5 ms … 10 s.
std::vector<double> latency_buckets();
// `count` bounds start, start*factor, … (Prometheus' ExponentialBuckets).
std::vector<double> exponential_buckets(double start, double factor, size_t count);

namespace detail {

struct ValuesLess {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return std::lexicographical_compare(
        a.begin(), a.end(), b.begin(), b.end(),
        [](const auto& x, const auto& y) { return std::string_view(x) < std::string_view(y); });
  }
};

}  // namespace detail

// A metric family of instruments T, one per distinct label value set.
template <class T>
class Family {
 public:
  Family(std::string name, std::string help, MetricType type, std::vector<std::string> label_names,
         std::vector<double> bounds = {});
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  // The series for `values` (one per label name, in label order), created
  // on first use. Throws std::invalid_argument for a wrong value count.
  T& labels(std::initializer_list<std::string_view> values);
  T& labels(std::span<const std::string_view> values);

  const std::string& name() const { return name_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // The family with a copy of every series' current values.
  MetricFamily snapshot() const;

 private:
  std::string name_;
  std::string help_;
  MetricType type_;
  std::vector<std::string> label_names_;
  std::vector<double> bounds_;  // histograms
  mutable std::shared_mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<T>, detail::ValuesLess> series_;
};

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

extern template class Family<Counter>;
extern template class Family<Gauge>;
extern template class Family<Histogram>;

}  // namespace hami::observability
