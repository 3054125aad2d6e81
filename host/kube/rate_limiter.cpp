#include "kube/rate_limiter.hpp"

#include <algorithm>
#include <cmath>
#include <thread>
#include <utility>

namespace hami::kube {

RateLimiter::RateLimiter(double qps, int burst, Sleeper sleeper, Clock clock)
    : qps_(qps),
      burst_(static_cast<double>(std::max(burst, 1))),
      sleeper_(std::move(sleeper)),
      clock_(std::move(clock)),
      tokens_(burst_) {
  if (!sleeper_)
    sleeper_ = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  if (!clock_)
    clock_ = [] { return std::chrono::steady_clock::now(); };
  last_ = clock_();
}

std::chrono::milliseconds RateLimiter::acquire() {
  if (qps_ <= 0)
    return std::chrono::milliseconds(0);
  std::chrono::milliseconds wait{0};
  {
    std::lock_guard lock(mu_);
    const auto now = clock_();
    if (now > last_) {
      const double elapsed = std::chrono::duration<double>(now - last_).count();
      tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
      last_ = now;
    }
    // Reserve: the token is ours now, and due when the deficit has refilled.
    tokens_ -= 1.0;
    if (tokens_ < 0) {
      const double seconds = -tokens_ / qps_;
      wait = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000.0 - 1e-6)));
    }
  }
  if (wait.count() > 0)
    sleeper_(wait);
  return wait;
}

}  // namespace hami::kube
