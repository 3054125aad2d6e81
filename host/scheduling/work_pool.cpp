#include "scheduling/work_pool.hpp"

#include <algorithm>

namespace hami::scheduling {

WorkPool::WorkPool(size_t workers) {
  threads_.reserve(workers);
  for (size_t i = 0; i < workers; ++i)
    threads_.emplace_back([this, i] { work(i + 1); });
}

WorkPool::~WorkPool() {
  {
    std::lock_guard guard(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_)
    t.join();
}

void WorkPool::drain(Job& job, size_t slot) {
  for (size_t chunk = job.next.fetch_add(1); chunk < job.chunks; chunk = job.next.fetch_add(1)) {
    (*job.body)(chunk, slot);
  }
}

void WorkPool::run(size_t chunks, const std::function<void(size_t, size_t)>& body) {
  if (chunks == 0)
    return;
  Job job;
  job.chunks = chunks;
  job.body = &body;
  const bool share = chunks > 1 && !threads_.empty();
  if (share) {
    {
      std::lock_guard guard(mu_);
      jobs_.push_back(&job);
    }
    wake_.notify_all();
  }
  drain(job, 0);
  if (!share)
    return;
  // No new worker may join once the job is off the queue; wait for the ones
  // still inside it.
  std::unique_lock lock(mu_);
  jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), &job), jobs_.end());
  done_.wait(lock, [&] { return job.active == 0; });
}

void WorkPool::work(size_t slot) {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    if (stop_)
      return;
    Job* job = jobs_.front();
    // Rotate so concurrent calls share the workers.
    jobs_.pop_front();
    jobs_.push_back(job);
    if (job->next.load() >= job->chunks) {
      // Nothing left to take; let the caller retire it.
      jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), job), jobs_.end());
      done_.notify_all();
      continue;
    }
    ++job->active;
    lock.unlock();
    drain(*job, slot);
    lock.lock();
    --job->active;
    done_.notify_all();
  }
}

}  // namespace hami::scheduling
