#include "server/event_loop.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace hami::server {

EventLoop::EventLoop(std::chrono::milliseconds tick) : tick_(tick) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0)
    throw std::runtime_error(std::string("epoll_create1: ") + std::strerror(errno));
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0 || !add(wake_fd_, EPOLLIN, kWakeKey)) {
    const std::string why = std::strerror(errno);
    if (wake_fd_ >= 0)
      ::close(wake_fd_);
    ::close(epoll_fd_);
    throw std::runtime_error("eventfd: " + why);
  }
}

EventLoop::~EventLoop() {
  ::close(wake_fd_);
  ::close(epoll_fd_);
}

bool EventLoop::add(int fd, std::uint32_t events, std::uint64_t key) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = key;
  return ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
}

bool EventLoop::modify(int fd, std::uint32_t events, std::uint64_t key) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = key;
  return ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) == 0;
}

void EventLoop::remove(int fd) {
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

void EventLoop::post(std::function<void()> task) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_)
      return;
    posted_.push_back(std::move(task));
  }
  wake();
}

void EventLoop::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake();
}

void EventLoop::wake() {
  const std::uint64_t one = 1;
  // A full counter still wakes the loop; nothing to do on failure.
  [[maybe_unused]] const auto n = ::write(wake_fd_, &one, sizeof one);
}

void EventLoop::run_posted() {
  std::vector<std::function<void()>> tasks;
  {
    const std::lock_guard lock(mutex_);
    tasks.swap(posted_);
  }
  for (auto& task : tasks)
    task();
}

void EventLoop::run(const std::function<void(std::uint64_t, std::uint32_t)>& on_event,
                    const std::function<void(Clock::time_point)>& on_tick,
                    const std::function<void()>& after_round) {
  std::array<epoll_event, 64> events{};
  auto next_tick = Clock::now() + tick_;
  for (;;) {
    const auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - Clock::now());
    const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                               static_cast<int>(std::max<std::int64_t>(0, wait.count()) + 1));
    bool woken = false;
    for (std::size_t i = 0; i < static_cast<std::size_t>(std::max(n, 0)); ++i) {
      if (events[i].data.u64 == kWakeKey) {
        std::uint64_t count = 0;
        [[maybe_unused]] const auto r = ::read(wake_fd_, &count, sizeof count);
        woken = true;
        continue;
      }
      on_event(events[i].data.u64, events[i].events);
    }
    if (woken) {
      run_posted();
      const std::lock_guard lock(mutex_);
      if (stopping_)
        return;
    }
    const auto now = Clock::now();
    if (now >= next_tick) {
      on_tick(now);
      next_tick = now + tick_;
    }
    after_round();
  }
}

}  // namespace hami::server
