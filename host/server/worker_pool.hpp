// WorkerPool: the threads that run the handlers allowed to block (routes
// with Execution::worker), so that the event loops never wait.
//
// Threads are started on demand: a task submitted while no thread is idle
// starts a new one, up to the maximum; beyond that tasks queue. A server
// that only serves inline routes (the webhook) never starts one.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hami::server {

class WorkerPool {
 public:
  explicit WorkerPool(int max_threads);
  // Waits for the running tasks; queued ones still run first.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(std::function<void()> task);
  // Threads started so far, and those of them waiting for a task.
  int threads() const;
  int idle() const;

 private:
  void run();

  const int max_threads_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  int idle_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace hami::server
