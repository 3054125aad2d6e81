// ConnectionWatch: the server's register of open connections.
//
// Each served connection registers its socket for its lifetime. While a
// request is being received the connection arms a deadline; a watcher
// thread shuts down the receiving side of any connection whose deadline
// passed, which ends the blocked read in the serving thread (a client
// trickling its header or body is cut even though every single read is
// quick) while the connection can still send its 408. The
// register also lets shutdown abort every open connection at once.
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

namespace hami::server {

class ConnectionWatch {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts the watcher thread.
  ConnectionWatch();
  // Stops the watcher thread; registrations must have ended.
  ~ConnectionWatch();
  ConnectionWatch(const ConnectionWatch&) = delete;
  ConnectionWatch& operator=(const ConnectionWatch&) = delete;

  // One open connection, registered from construction to destruction. The
  // socket `fd` must stay open for the registration's lifetime.
  class Registration {
   public:
    Registration(ConnectionWatch& watch, int fd);
    ~Registration();
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;

    // The connection is shut down if still armed at `deadline`.
    void arm(Clock::time_point deadline);
    void disarm();
    // True once the watcher cut this connection.
    bool expired() const;

   private:
    ConnectionWatch& watch_;
    std::uint64_t id_;
  };

  // Shuts down every registered connection (reads and writes fail from
  // now on); used when the shutdown grace period is over.
  void abort_all();
  int open() const;
  // Connections cut at their deadline since construction.
  int cut() const;

 private:
  struct Entry {
    int fd = -1;
    Clock::time_point deadline = Clock::time_point::max();
    bool expired = false;
  };
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<std::uint64_t, Entry> entries_;
  std::uint64_t next_id_ = 0;
  int cut_ = 0;
  bool stopping_ = false;
  // When the watcher will look next; arming an earlier deadline wakes it.
  Clock::time_point next_check_ = Clock::time_point::max();
  std::thread thread_;
};

}  // namespace hami::server
