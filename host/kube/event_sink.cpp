#include "kube/event_sink.hpp"

#include <string>
#include <utility>

#include "log/logger.hpp"

namespace hami::kube {

EventSink::EventSink(std::unique_ptr<EventRecorder> recorder, size_t capacity,
                     const log::Logger* logger, EventClock clock)
    : recorder_(std::move(recorder)),
      capacity_(capacity == 0 ? 1 : capacity),
      logger_(logger),
      clock_(std::move(clock)),
      thread_([this](std::stop_token stop) { run(std::move(stop)); }) {}

EventSink::~EventSink() {
  thread_.request_stop();
  cv_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void EventSink::submit(cluster::Event event) {
  const auto when = clock_ ? clock_() : std::chrono::system_clock::now();
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
    queue_.emplace_back(std::move(event), when);
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

void EventSink::record(const Submitted& submitted) {
  const cluster::Event& event = submitted.first;
  try {
    recorder_->record(event, submitted.second);
  } catch (const std::exception& e) {
    if (logger_) {
      logger_->warn("event not recorded", {{"object", event.namespace_ + "/" + event.name},
                                           {"reason", event.reason},
                                           {"error", e.what()}});
    }
  }
}

void EventSink::maintain() {
  try {
    recorder_->maintain();
  } catch (const std::exception& e) {
    if (logger_)
      logger_->warn("event maintenance failed", {{"error", e.what()}});
  }
}

void EventSink::run(std::stop_token stop) {
  using Clock = std::chrono::steady_clock;
  const auto period = recorder_->maintenance_period();
  const bool maintained = period.count() > 0;
  auto next_maintenance = Clock::now() + period;
  const auto pending = [&] { return !queue_.empty(); };
  std::unique_lock lock(mu_);
  while (true) {
    if (maintained)
      cv_.wait_until(lock, stop, next_maintenance, pending);
    else
      cv_.wait(lock, stop, pending);
    if (stop.stop_requested())
      return;
    // Due maintenance goes first, so a steady stream of events cannot
    // postpone it.
    const bool due = maintained && Clock::now() >= next_maintenance;
    if (!due && queue_.empty())
      continue;
    busy_ = true;
    if (due) {
      lock.unlock();
      maintain();
      next_maintenance = Clock::now() + period;
    } else {
      Submitted submitted = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      record(submitted);
    }
    lock.lock();
    busy_ = false;
    if (queue_.empty())
      idle_cv_.notify_all();
  }
}

}  // namespace hami::kube
