// The Event writes that follow the first one (kube/write_bodies.hpp builds
// that), as client-go's recorders send them: strategic merge patches of a
// repeat, and the create bodies of an Event the server no longer has (its
// TTL ran out) carrying the counts seen so far.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace hami::kube {

using EventTime = std::chrono::system_clock::time_point;

// events.k8s.io/v1: {"series":{"count":N,"lastObservedTime":"<MicroTime>"}}.
std::string event_series_patch_body(int32_t count, EventTime last_observed);

// An events_v1_event_body with "series" (as above) added.
std::string with_event_series(std::string_view create_body, int32_t count, EventTime last_observed);

// core v1: {"count":N,"lastTimestamp":"<RFC 3339>","message":"…"} (the
// members client-go's two-way merge patch of a repeat carries).
std::string core_event_count_patch_body(int32_t count, EventTime last_timestamp,
                                        std::string_view message);

// A core_v1_event_body with "count" and "firstTimestamp" replaced.
std::string with_event_count(std::string_view create_body, int32_t count,
                             EventTime first_timestamp);

}  // namespace hami::kube
