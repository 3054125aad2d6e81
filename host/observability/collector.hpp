// Collector: metrics computed at scrape time (HAMi's cluster metrics, build
// and plugin information) rather than recorded as events happen.
#pragma once

#include <vector>

#include "observability/metric_family.hpp"

namespace hami::observability {

class Collector {
 public:
  virtual ~Collector() = default;

  // Appends this collector's families to `out`. Called concurrently from
  // every scrape; must not block the request path for long. May throw: the
  // registry then counts the failure and serves everything else.
  virtual void collect(std::vector<MetricFamily>& out) const = 0;
};

}  // namespace hami::observability
