#include "kube/event_correlator.hpp"

#include <algorithm>
#include <initializer_list>

#include "kube/write_bodies.hpp"

namespace hami::kube {

namespace {

// client-go joins the fields with nothing between them; a separator keeps
// ("ab", "c") and ("a", "bc") apart.
std::string join(char tag, std::initializer_list<std::string_view> parts) {
  std::string key(1, tag);
  for (std::string_view part : parts) {
    key += part;
    key += '\0';
  }
  return key;
}

int64_t unix_nanos(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

EventCorrelator::EventCorrelator(EventCorrelatorLimits limits)
    : limits_(limits),
      aggregates_(limits.cache_size),
      observations_(limits.cache_size),
      buckets_(limits.cache_size) {}

CorrelatedEvent EventCorrelator::correlate(const cluster::Event& event, std::string_view component,
                                           std::string_view instance, Time now) {
  // Source host is empty and involvedObject apiVersion "v1" for every
  // Event written here; fieldPath is never set.
  const std::string_view kind = event.kind, ns = event.namespace_, name = event.name,
                         uid = event.uid, type = event.type, reason = event.reason;
  CorrelatedEvent out;
  out.event = event;
  std::string log_key = join('E', {component, kind, ns, name, uid, type, reason, event.message});

  // Aggregator (EventAggregator.EventAggregate).
  const std::string aggregate_key =
      join('A', {component, kind, ns, name, uid, type, reason, component, instance});
  Aggregate aggregate;
  if (const Aggregate* seen = aggregates_.find(aggregate_key))
    aggregate = *seen;
  if (now - aggregate.last > limits_.aggregate_interval)
    aggregate = Aggregate{};
  if (std::find(aggregate.messages.begin(), aggregate.messages.end(), event.message) ==
      aggregate.messages.end()) {
    aggregate.messages.push_back(event.message);
  }
  aggregate.last = now;
  const bool aggregated = aggregate.messages.size() >= limits_.aggregate_max_events;
  if (aggregated) {
    // The set stays below the threshold, so the next new message is
    // aggregated too (client-go pops any one; the oldest here).
    aggregate.messages.pop_front();
    out.event.message = "(combined from similar events): " + event.message;
    log_key = aggregate_key;
  }
  aggregates_.put(aggregate_key, std::move(aggregate));

  // Logger (eventLogger.eventObserve).
  Observation observation;
  if (const Observation* seen = observations_.find(log_key); seen && seen->count > 0) {
    observation = *seen;
    ++observation.count;
  } else {
    observation.count = 1;
    observation.first = now;
    observation.name = event_name(event.name, unix_nanos(now));
  }
  out.name = observation.name;
  out.count = observation.count;
  out.first_timestamp = observation.first;
  out.last_timestamp = now;
  observations_.put(log_key, std::move(observation));

  // Spam filter (EventSourceObjectSpamFilter.Filter).
  out.skip = !allow(join('S', {component, kind, ns, name, uid, type}), now);
  return out;
}

bool EventCorrelator::allow(const std::string& key, Time now) {
  Bucket bucket{limits_.spam_burst, now};
  if (const Bucket* seen = buckets_.find(key)) {
    bucket = *seen;
    const double elapsed = std::chrono::duration<double>(now - bucket.last).count();
    if (elapsed > 0) {
      bucket.tokens = std::min(limits_.spam_burst, bucket.tokens + elapsed * limits_.spam_qps);
      bucket.last = now;
    }
  }
  const bool allowed = bucket.tokens >= 1;
  if (allowed)
    bucket.tokens -= 1;
  buckets_.put(key, bucket);
  return allowed;
}

}  // namespace hami::kube
