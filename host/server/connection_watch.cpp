#include "server/connection_watch.hpp"

#include <sys/socket.h>

namespace hami::server {

ConnectionWatch::ConnectionWatch() : thread_([this] { run(); }) {}

ConnectionWatch::~ConnectionWatch() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

ConnectionWatch::Registration::Registration(ConnectionWatch& watch, int fd) : watch_(watch) {
  const std::lock_guard lock(watch_.mutex_);
  id_ = watch_.next_id_++;
  watch_.entries_.emplace(id_, Entry{.fd = fd});
}

ConnectionWatch::Registration::~Registration() {
  const std::lock_guard lock(watch_.mutex_);
  watch_.entries_.erase(id_);
}

void ConnectionWatch::Registration::arm(Clock::time_point deadline) {
  bool sooner = false;
  {
    const std::lock_guard lock(watch_.mutex_);
    watch_.entries_[id_].deadline = deadline;
    sooner = deadline < watch_.next_check_;
    if (sooner)
      watch_.next_check_ = deadline;
  }
  // Only a deadline earlier than the watcher's next look needs a wake-up;
  // the common case (same timeout for every request) costs no syscall.
  if (sooner)
    watch_.wake_.notify_one();
}

void ConnectionWatch::Registration::disarm() {
  const std::lock_guard lock(watch_.mutex_);
  watch_.entries_[id_].deadline = Clock::time_point::max();
}

bool ConnectionWatch::Registration::expired() const {
  const std::lock_guard lock(watch_.mutex_);
  const auto found = watch_.entries_.find(id_);
  return found != watch_.entries_.end() && found->second.expired;
}

void ConnectionWatch::abort_all() {
  const std::lock_guard lock(mutex_);
  for (auto& [id, entry] : entries_)
    ::shutdown(entry.fd, SHUT_RDWR);
}

int ConnectionWatch::open() const {
  const std::lock_guard lock(mutex_);
  return static_cast<int>(entries_.size());
}

int ConnectionWatch::cut() const {
  const std::lock_guard lock(mutex_);
  return cut_;
}

void ConnectionWatch::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto now = Clock::now();
    auto next = Clock::time_point::max();
    for (auto& [id, entry] : entries_) {
      if (entry.deadline <= now) {
        // Under the lock: the registration (and so the open socket) cannot
        // go away meanwhile, so the fd is still this connection's. Only the
        // receiving side: the blocked read ends, and the connection can
        // still send its 408.
        ::shutdown(entry.fd, SHUT_RD);
        entry.deadline = Clock::time_point::max();
        entry.expired = true;
        ++cut_;
      } else if (entry.deadline < next) {
        next = entry.deadline;
      }
    }
    next_check_ = next;
    if (next == Clock::time_point::max())
      wake_.wait(lock);
    else
      wake_.wait_until(lock, next);
  }
}

}  // namespace hami::server
