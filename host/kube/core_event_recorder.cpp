#include "kube/core_event_recorder.hpp"

#include <utility>

#include "kube/api_client.hpp"
#include "kube/event_bodies.hpp"
#include "kube/write_bodies.hpp"
#include "log/logger.hpp"

namespace hami::kube {

CoreEventRecorder::CoreEventRecorder(std::shared_ptr<ApiClient> client,
                                     EventRecorderOptions options, EventCorrelatorLimits limits)
    : client_(std::move(client)), options_(std::move(options)), correlator_(limits) {}

void CoreEventRecorder::record(const cluster::Event& event,
                               std::chrono::system_clock::time_point when) {
  const std::string& component = event.component.empty() ? options_.component : event.component;
  const CorrelatedEvent c = correlator_.correlate(event, component, options_.instance, when);
  if (c.skip) {
    // Logged on the 1st, 2nd, 4th, 8th… skip: visible without flooding.
    const uint64_t n = ++skipped_;
    if (options_.logger && (n & (n - 1)) == 0) {
      options_.logger->info("events rate-limited per object",
                            {{"skipped", std::to_string(n)},
                             {"object", event.namespace_ + "/" + event.name},
                             {"reason", event.reason}});
    }
    return;
  }
  const std::string path = "/api/v1/namespaces/" + query_escape(event_namespace(event)) + "/events";
  if (c.count > 1) {
    try {
      client_->patch(path + "/" + query_escape(c.name), PatchType::strategic,
                     core_event_count_patch_body(c.count, c.last_timestamp, c.event.message));
      return;
    } catch (const ApiError& e) {
      if (e.status() != 404)
        throw;
    }
  }
  EventStamp stamp;
  stamp.name = c.name;
  stamp.unix_nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(c.last_timestamp.time_since_epoch())
          .count();
  stamp.component = component;
  stamp.instance = options_.instance;
  if (options_.object_version)
    stamp.resource_version = options_.object_version(event);
  std::string body = core_v1_event_body(c.event, stamp);
  if (c.count > 1)
    body = with_event_count(body, c.count, c.first_timestamp);
  client_->post(path, body);
}

}  // namespace hami::kube
