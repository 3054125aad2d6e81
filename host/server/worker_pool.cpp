#include "server/worker_pool.hpp"

#include <algorithm>

namespace hami::server {

WorkerPool::WorkerPool(int max_threads) : max_threads_(std::max(1, max_threads)) {}

WorkerPool::~WorkerPool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_)
    t.join();
}

void WorkerPool::submit(std::function<void()> task) {
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
    // Idle threads outnumbering the queue will take it; otherwise grow.
    if (static_cast<std::size_t>(idle_) < queue_.size() &&
        static_cast<int>(threads_.size()) < max_threads_) {
      threads_.emplace_back([this] { run(); });
    }
  }
  ready_.notify_one();
}

int WorkerPool::threads() const {
  const std::lock_guard lock(mutex_);
  return static_cast<int>(threads_.size());
}

int WorkerPool::idle() const {
  const std::lock_guard lock(mutex_);
  return idle_;
}

void WorkerPool::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    ++idle_;
    ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (queue_.empty())
      return;
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace hami::server
