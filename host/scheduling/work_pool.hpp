// WorkPool: a few long-lived worker threads that help the calling thread
// through the chunks of one call (filter walks thousands of candidate
// nodes). The caller always works too, so a call never waits for a busy
// pool; idle workers join in. Several calls may run at once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hami::scheduling {

class WorkPool {
 public:
  // `workers` helper threads (0: everything runs on the caller).
  explicit WorkPool(size_t workers);
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  // Participants of one run: the caller (slot 0) and every worker (slots
  // 1..workers). `body` gets each chunk index in [0, chunks) exactly once,
  // with the slot of the thread running it; one slot never runs two chunks
  // at the same time. Returns when every chunk is done. `body` must not
  // throw.
  size_t slots() const { return threads_.size() + 1; }
  void run(size_t chunks, const std::function<void(size_t chunk, size_t slot)>& body);

 private:
  struct Job {
    size_t chunks;
    const std::function<void(size_t, size_t)>* body;
    std::atomic<size_t> next{0};
    int active = 0;  // workers inside the job; guarded by the pool mutex
  };

  void work(size_t slot);
  static void drain(Job& job, size_t slot);

  std::mutex mu_;
  std::condition_variable wake_;  // workers: a job arrived or stop
  std::condition_variable done_;  // callers: a worker left a job
  std::deque<Job*> jobs_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace hami::scheduling
