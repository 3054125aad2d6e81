#include "kube/event_series.hpp"

#include <utility>

#include "kube/api_client.hpp"
#include "kube/event_bodies.hpp"
#include "log/logger.hpp"

namespace hami::kube {

namespace {

int64_t unix_nanos(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// What makes Events isomorphic (client-go tools/events getKey; the
// regarding apiVersion is always v1 here, action follows from reason).
std::string isomorphic_key(const cluster::Event& event, std::string_view component,
                           std::string_view instance) {
  std::string key;
  for (std::string_view part :
       {std::string_view(event.type), std::string_view(event.reason), component, instance,
        std::string_view(event.kind), std::string_view(event.namespace_),
        std::string_view(event.name), std::string_view(event.uid)}) {
    key += part;
    key += '\0';
  }
  return key;
}

}  // namespace

EventSeriesRecorder::EventSeriesRecorder(std::shared_ptr<ApiClient> client,
                                         EventRecorderOptions options, EventSeriesTiming timing)
    : client_(std::move(client)),
      options_(std::move(options)),
      timing_(timing),
      cache_(timing.cache_size),
      last_refresh_(now()) {}

EventSeriesRecorder::Time EventSeriesRecorder::now() const {
  return options_.clock ? options_.clock() : std::chrono::system_clock::now();
}

std::string EventSeriesRecorder::events_path(const cluster::Event& event) const {
  return "/apis/events.k8s.io/v1/namespaces/" + query_escape(event_namespace(event)) + "/events";
}

void EventSeriesRecorder::record(const cluster::Event& event, Time when) {
  const std::string& component = event.component.empty() ? options_.component : event.component;
  std::string key = isomorphic_key(event, component, options_.instance);
  if (Followed* followed = cache_.find(key)) {
    followed->last_observed = when;
    if (followed->count > 0) {
      ++followed->count;  // written by the refresh or at the series' end
      return;
    }
    followed->count = 2;
    write_series(*followed);
    return;
  }
  Followed followed;
  followed.event = event;
  followed.stamp.unix_nanos = unix_nanos(when);
  followed.stamp.name = event_name(event.name, followed.stamp.unix_nanos);
  followed.stamp.component = component;
  followed.stamp.instance = options_.instance;
  followed.last_observed = when;
  const std::string body = events_v1_event_body(event, followed.stamp);
  if (auto evicted = cache_.put(key, std::move(followed));
      evicted && evicted->second.count > evicted->second.written) {
    write_series_logged(evicted->second, "series evicted");
  }
  client_->post(events_path(event), body);
}

void EventSeriesRecorder::write_series(Followed& followed) {
  try {
    client_->patch(events_path(followed.event) + "/" + query_escape(followed.stamp.name),
                   PatchType::strategic,
                   event_series_patch_body(followed.count, followed.last_observed));
  } catch (const ApiError& e) {
    if (e.status() != 404)
      throw;
    client_->post(events_path(followed.event),
                  with_event_series(events_v1_event_body(followed.event, followed.stamp),
                                    followed.count, followed.last_observed));
  }
  followed.written = followed.count;
}

bool EventSeriesRecorder::write_series_logged(Followed& followed, const char* why) {
  try {
    write_series(followed);
    return true;
  } catch (const ApiError& e) {
    if (options_.logger) {
      options_.logger->warn("event series not recorded",
                            {{"object", followed.event.namespace_ + "/" + followed.event.name},
                             {"reason", followed.event.reason},
                             {"count", std::to_string(followed.count)},
                             {"when", why},
                             {"error", e.what()}});
    }
    // client-go keeps a series only while the server cannot be reached.
    return e.status() != 0;
  } catch (const std::exception& e) {
    if (options_.logger)
      options_.logger->warn("event series not recorded", {{"error", e.what()}});
    return true;
  }
}

void EventSeriesRecorder::maintain() {
  const Time t = now();
  const Time quiet_since = t - timing_.finish_after;
  cache_.erase_if([&](const std::string&, Followed& followed) {
    if (followed.count > 0)
      return followed.last_observed < quiet_since && write_series_logged(followed, "series ended");
    return Time(std::chrono::duration_cast<Time::duration>(
               std::chrono::nanoseconds(followed.stamp.unix_nanos))) < quiet_since;
  });
  if (t - last_refresh_ < timing_.refresh_every)
    return;
  last_refresh_ = t;
  cache_.for_each([&](const std::string&, Followed& followed) {
    if (followed.count > 0)
      write_series_logged(followed, "series refresh");
  });
}

}  // namespace hami::kube
