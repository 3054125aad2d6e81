// EventLoop: one thread's epoll set, a queue of tasks other threads post
// to it (woken through an eventfd) and a periodic tick.
//
// Sources are registered under a 64-bit key that the loop hands back with
// their events; the owner of the loop maps keys to objects, so a late event
// or task for an object that is gone finds nothing instead of a dangling
// pointer. Everything except post() and stop() runs on the loop's thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace hami::server {

class EventLoop {
 public:
  using Clock = std::chrono::steady_clock;
  // Key 0 is the loop's own wake-up source.
  static constexpr std::uint64_t kWakeKey = 0;

  // Throws std::runtime_error when the kernel refuses an epoll set or an
  // eventfd.
  explicit EventLoop(std::chrono::milliseconds tick);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // epoll_ctl; false when the kernel refused (errno tells why).
  bool add(int fd, std::uint32_t events, std::uint64_t key);
  bool modify(int fd, std::uint32_t events, std::uint64_t key);
  void remove(int fd);

  // Runs until stop(). Each round: on_event(key, events) for every ready
  // source, the posted tasks, on_tick(now) when a tick is due (at least
  // every tick), then after_round().
  void run(const std::function<void(std::uint64_t, std::uint32_t)>& on_event,
           const std::function<void(Clock::time_point)>& on_tick,
           const std::function<void()>& after_round);

  // Thread-safe. Tasks posted after stop() are dropped.
  void post(std::function<void()> task);
  // Thread-safe; run() returns after the current round.
  void stop();

 private:
  void wake();
  void run_posted();

  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::chrono::milliseconds tick_;
  std::mutex mutex_;
  std::vector<std::function<void()>> posted_;
  bool stopping_ = false;
};

}  // namespace hami::server
