#include "scheduling/health_loop.hpp"

namespace hami::scheduling {

HealthLoop::HealthLoop(Scheduler& scheduler, std::chrono::milliseconds period)
    : scheduler_(scheduler), period_(period), thread_([this] { run(); }) {}

HealthLoop::~HealthLoop() {
  {
    std::lock_guard guard(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

unsigned HealthLoop::passes() const {
  std::lock_guard guard(mu_);
  return passes_;
}

void HealthLoop::run() {
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, period_, [this] { return stop_; })) {
    lock.unlock();
    scheduler_.check_node_health();
    lock.lock();
    ++passes_;
  }
}

}  // namespace hami::scheduling
