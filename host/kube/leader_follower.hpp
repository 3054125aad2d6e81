// LeaseFollower: HAMi's passive leader detection (reference §1.8). Watches
// one Lease (a Reflector with fieldSelector metadata.name=<lease> in the
// lease namespace) without ever writing it, and is the leader while
//   - the lease's holderIdentity is our identity or "<identity>_…"
//     (kube-scheduler writes "<hostname>_<uuid>"), and
//   - the lease was renewed recently: the local time at which its current
//     record (holder, times, transitions) was first seen, plus its
//     leaseDurationSeconds, is still ahead. Judging by local observation
//     time, not the renewTime the holder wrote, tolerates clock skew.
// A timer re-judges the lease when it would expire, so a kube-scheduler
// that stops renewing (or a deleted lease) makes us a follower in time.
// Until the first list of the lease completes this process is a follower.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "kube/api_client.hpp"
#include "kube/leader_detector.hpp"
#include "kube/leader_lease.hpp"
#include "kube/reflector.hpp"

namespace hami::kube {

struct LeaseFollowerOptions {
  std::string namespace_ = "kube-system";
  std::string name = "kube-scheduler";
  std::string identity;  // required
  std::chrono::seconds watch_timeout{300};
  std::chrono::milliseconds backoff_initial{200};
  std::chrono::milliseconds backoff_max{std::chrono::seconds(30)};
  // Local observation clock; empty: std::chrono::steady_clock::now.
  std::function<std::chrono::steady_clock::time_point()> clock;
  const log::Logger* logger = nullptr;  // must outlive the follower
};

class LeaseFollower final : public LeaderDetector {
 public:
  LeaseFollower(std::shared_ptr<ApiClient> client, LeaseFollowerOptions options);
  ~LeaseFollower() override;

  void start() override;
  void stop() override;

  // Re-judges the last observed lease against the clock (the timer calls
  // this; tests with a manual clock call it after moving the clock).
  void evaluate();

 private:
  using TimePoint = std::chrono::steady_clock::time_point;

  TimePoint now() const;
  void observe(const rapidjson::Value* lease);  // null: absent / deleted
  void timer(std::stop_token stop);

  LeaseFollowerOptions options_;
  std::string ref_;  // "ns/name"
  std::mutex mu_;
  bool listed_ = false;
  std::string watch_error_;
  std::optional<LeaseRecord> record_;
  TimePoint observed_at_{};
  std::condition_variable_any timer_cv_;
  std::unique_ptr<Reflector> reflector_;
  std::jthread timer_;
};

}  // namespace hami::kube
