// LeaseElector: an active Lease election (cluster.leaderElection.mode
// elect), client-go's algorithm as kubernetes.md §4.7 describes it, for
// deployments without a co-located kube-scheduler.
//
// Every retry period (jittered up to ×1.2 while a candidate) one attempt:
// GET the lease; 404 → POST one naming us (409 AlreadyExists: someone else
// won). A fetched record that differs from the last one seen is remembered
// with the LOCAL time of observation. Another holder whose observation
// time + leaseDurationSeconds is still ahead → we stay a candidate. Else
// PUT holder = us, renewTime = now, acquireTime = now (kept while we hold
// it), leaseTransitions + 1 on a change of holder, carrying the fetched
// resourceVersion (409 → lost the race).
//
// While leading, the lease is renewed every retry period; when no renewal
// succeeded within the renew deadline this process stops leading at once
// (is_leader() is judged against the deadline on every call, so the gate
// closes even while a request hangs). stop() releases a lease it holds:
// PUT holder "", leaseDurationSeconds 1, times = now, so a standby takes
// over quickly.
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

namespace hami::kube {

struct LeaseElectorOptions {
  std::string namespace_ = "kube-system";
  std::string name = "hami-scheduler";
  std::string identity;  // required; unique per process
  std::chrono::milliseconds lease_duration{std::chrono::seconds(15)};
  std::chrono::milliseconds renew_deadline{std::chrono::seconds(10)};
  std::chrono::milliseconds retry_period{std::chrono::seconds(2)};
  // Local clock (observation times, the renew deadline); empty: steady_clock.
  std::function<std::chrono::steady_clock::time_point()> clock;
  // Wall clock for the times written into the lease; empty: system_clock.
  std::function<std::chrono::system_clock::time_point()> wall_clock;
  const log::Logger* logger = nullptr;  // must outlive the elector
};

class LeaseElector final : public LeaderDetector {
 public:
  // The client's request timeout should stay below the renew deadline (the
  // wiring gives the elector its own client for that).
  LeaseElector(std::shared_ptr<ApiClient> client, LeaseElectorOptions options);
  ~LeaseElector() override;

  void start() override;
  // Stops the loop and releases the lease when we hold it.
  void stop() override;
  // Stops the loop without releasing (a crash, for tests).
  void abandon();

  bool is_leader() const override;
  std::string gate() const override;

  // One acquire-or-renew attempt and the resulting state change; the loop
  // calls it every retry period. Returns whether we hold the lease now.
  bool step();

 private:
  using TimePoint = std::chrono::steady_clock::time_point;

  TimePoint now() const;
  std::string wall_now() const;
  // GET + (POST | PUT). Sets `holder_seen`/`error` for the detail text.
  bool try_acquire_or_renew(std::string& holder_seen, std::string& error);
  void run(std::stop_token stop);
  void release();

  std::shared_ptr<ApiClient> client_;
  LeaseElectorOptions options_;
  std::string ref_;
  std::string path_;  // the lease's own path

  mutable std::mutex mu_;
  std::optional<LeaseRecord> observed_;
  TimePoint observed_at_{};
  std::string resource_version_;  // of the last lease read or written
  bool leading_ = false;
  TimePoint last_renew_{};
  uint64_t random_state_;

  std::mutex wait_mu_;
  std::condition_variable_any wait_cv_;
  std::jthread thread_;
};

}  // namespace hami::kube
