// RateLimiter: the client-side token bucket in front of API requests
// (client-go's flowcontrol token bucket): `burst` tokens at most, refilled
// at `qps` per second. acquire() reserves the next token and waits until it
// is due, so concurrent callers are served in order, each at its own time.
// Waiting goes through the Sleeper and time through the Clock, both
// replaceable, so tests are exact and do not sleep.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>

namespace hami::kube {

class RateLimiter {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using Sleeper = std::function<void(std::chrono::milliseconds)>;

  // qps <= 0: unlimited (acquire never waits). burst < 1 counts as 1.
  RateLimiter(double qps, int burst, Sleeper sleeper = {}, Clock clock = {});

  // Takes one token, waiting for it when the bucket is empty. Returns the
  // wait (zero when a token was ready).
  std::chrono::milliseconds acquire();

 private:
  double qps_;
  double burst_;
  Sleeper sleeper_;
  Clock clock_;
  std::mutex mu_;
  double tokens_;  // may go negative: tokens promised to waiting callers
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace hami::kube
