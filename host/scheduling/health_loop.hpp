// HealthLoop: runs Scheduler::check_node_health every `period` on its own
// thread (HAMi's 15 s registration loop), until destroyed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "scheduling/scheduler.hpp"

namespace hami::scheduling {

class HealthLoop {
 public:
  HealthLoop(Scheduler& scheduler, std::chrono::milliseconds period);
  ~HealthLoop();
  HealthLoop(const HealthLoop&) = delete;
  HealthLoop& operator=(const HealthLoop&) = delete;

  // Passes completed since start (tests).
  unsigned passes() const;

 private:
  void run();

  Scheduler& scheduler_;
  std::chrono::milliseconds period_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  unsigned passes_ = 0;
  std::thread thread_;
};

}  // namespace hami::scheduling
