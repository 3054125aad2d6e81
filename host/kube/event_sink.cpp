#include "kube/event_sink.hpp"

#include <string>
#include <utility>

#include "log/logger.hpp"

namespace hami::kube {

EventSink::EventSink(Post post, size_t capacity, const log::Logger* logger)
    : post_(std::move(post)),
      capacity_(capacity == 0 ? 1 : capacity),
      logger_(logger),
      thread_([this](std::stop_token stop) { run(std::move(stop)); }) {}

EventSink::~EventSink() {
  thread_.request_stop();
  cv_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void EventSink::submit(cluster::Event event) {
  {
    std::lock_guard guard(mu_);
    if (queue_.size() >= capacity_) {
      // Logged on the 1st, 2nd, 4th, 8th… drop: visible without flooding.
      const uint64_t n = ++dropped_;
      if (logger_ && (n & (n - 1)) == 0) {
        logger_->warn("events dropped: queue full",
                      {{"dropped", std::to_string(n)}, {"reason", event.reason}});
      }
      return;
    }
    queue_.push_back(std::move(event));
  }
  cv_.notify_one();
}

uint64_t EventSink::dropped() const {
  std::lock_guard guard(mu_);
  return dropped_;
}

bool EventSink::drain(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return idle_cv_.wait_for(lock, timeout, [&] { return queue_.empty() && !busy_; });
}

void EventSink::run(std::stop_token stop) {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, stop, [&] { return !queue_.empty(); });
    if (stop.stop_requested())
      return;
    cluster::Event event = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    try {
      post_(event);
    } catch (const std::exception& e) {
      if (logger_) {
        logger_->warn("event not recorded", {{"object", event.namespace_ + "/" + event.name},
                                             {"reason", event.reason},
                                             {"error", e.what()}});
      }
    }
    lock.lock();
    busy_ = false;
    if (queue_.empty())
      idle_cv_.notify_all();
  }
}

}  // namespace hami::kube
