#include "observability/leader_metrics.hpp"

#include <memory>
#include <stdexcept>
#include <utility>

#include "observability/collector.hpp"

namespace hami::observability {
namespace {

class LeaderStateCollector final : public Collector {
 public:
  explicit LeaderStateCollector(LeaderStateSource source) : source_(std::move(source)) {}

  void collect(std::vector<MetricFamily>& out) const override {
    out.push_back(gauge(kIsLeaderMetric, "Whether this scheduler is the leader (1) or not (0).",
                        source_.is_leader()));
    out.push_back(gauge(kCacheSyncedMetric,
                        "Whether this scheduler's cluster view is synced for scheduling (1) or "
                        "not (0).",
                        source_.synced()));
  }

 private:
  static MetricFamily gauge(const char* name, const char* help, bool value) {
    MetricFamily family;
    family.name = name;
    family.help = help;
    family.type = MetricType::gauge;
    family.add({}, value ? 1 : 0);
    return family;
  }

  LeaderStateSource source_;
};

}  // namespace

void add_leader_metrics(MetricsRegistry& registry, LeaderStateSource source) {
  if (!source.is_leader || !source.synced)
    throw std::invalid_argument("leader metrics: is_leader and synced are required");
  registry.add_collector(std::make_shared<LeaderStateCollector>(std::move(source)));
}

}  // namespace hami::observability
