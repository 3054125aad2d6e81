// EventSink: hands Events to a background thread that gives them to an
// EventRecorder (kube/event_recorder.hpp: aggregation, series, rate limits,
// then the write), so the filter and bind paths never wait on the API
// server or on the recorder's decisions (client-go's event broadcaster does
// the same). Each Event is stamped with the clock when it is submitted.
//
// The queue is bounded: when it is full a new event is dropped (and
// counted), so an event storm cannot grow memory. Failures of the recorder
// are logged and forgotten. The same thread runs the recorder's
// maintenance every maintenance_period(). Destruction stops the thread
// after the event in flight; events still queued are dropped.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <utility>

#include "kube/event_recorder.hpp"

namespace hami::log {
class Logger;
}

namespace hami::kube {

class EventSink {
 public:
  // `clock` stamps submitted events; empty: the system clock.
  EventSink(std::unique_ptr<EventRecorder> recorder, size_t capacity, const log::Logger* logger,
            EventClock clock = {});
  ~EventSink();
  EventSink(const EventSink&) = delete;
  EventSink& operator=(const EventSink&) = delete;

  // Never blocks on the network.
  void submit(cluster::Event event);
  // Events dropped because the queue was full.
  uint64_t dropped() const;
  // Blocks until the queue is empty and nothing is in flight, or `timeout`
  // passes; returns whether it drained (for orderly shutdown and tests).
  bool drain(std::chrono::milliseconds timeout);

 private:
  using Submitted = std::pair<cluster::Event, std::chrono::system_clock::time_point>;

  void run(std::stop_token stop);
  void record(const Submitted& submitted);
  void maintain();

  std::unique_ptr<EventRecorder> recorder_;
  size_t capacity_;
  const log::Logger* logger_;
  EventClock clock_;
  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  std::condition_variable_any idle_cv_;
  std::deque<Submitted> queue_;
  bool busy_ = false;
  uint64_t dropped_ = 0;
  std::jthread thread_;  // last: started after everything it uses
};

}  // namespace hami::kube
