// EventSink: hands Events to a background thread that posts them, so the
// filter and bind paths never wait on the API server for a best-effort
// write (client-go's event broadcaster does the same).
//
// The queue is bounded: when it is full a new event is dropped (and
// counted), so an event storm cannot grow memory or starve the scheduling
// writes of the client's rate limit for long. Failures of `post` are
// logged and forgotten. Destruction stops the thread after the request in
// flight; events still queued are dropped.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>

#include "cluster/cluster_state.hpp"

namespace hami::log {
class Logger;
}

namespace hami::kube {

class EventSink {
 public:
  // Sends one event; throws on failure.
  using Post = std::function<void(const cluster::Event&)>;

  EventSink(Post post, size_t capacity, const log::Logger* logger);
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
  void run(std::stop_token stop);

  Post post_;
  size_t capacity_;
  const log::Logger* logger_;
  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  std::condition_variable_any idle_cv_;
  std::deque<cluster::Event> queue_;
  bool busy_ = false;
  uint64_t dropped_ = 0;
  std::jthread thread_;  // last: started after everything it uses
};

}  // namespace hami::kube
