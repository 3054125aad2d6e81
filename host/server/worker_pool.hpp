// WorkerPool: the threads that run the handlers allowed to block (routes
// with Execution::worker), so that the event loops never wait.
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
  explicit WorkerPool(int threads);
  // Waits for the running tasks; queued ones still run first.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(std::function<void()> task);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace hami::server
