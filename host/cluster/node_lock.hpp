// The HAMi node lock (node annotation `hami.io/mutex.lock`), taken by the
// scheduler at bind time and released by the node-side device plugin after
// Allocate, or by the scheduler when the bind fails.
//
// Value: "<RFC3339 time>,<namespace>,<pod name>" (legacy: just the time).
// One lock per node, shared by every vendor. Every write is conditional on
// the node's resourceVersion, so two schedulers (or two threads) can never
// both believe they hold it.
//
// Acquire: no lock → take it; expired (older than `expiry`) → take it over;
// held by the same pod → already ours; owner pod gone → take it over; else
// NodeLockError (contention) with HAMi's text
// "node <n> has been locked within 5m0s: node lock contention". A take-over
// replaces the old value in one conditional write (HAMi removes, then
// sets). A write that loses the resourceVersion race is retried on the
// backend's refreshed view, judging expiry and owner again, up to
// `max_attempts` times.
// A malformed value is an error, as in HAMi (fail closed).
//
// A vendor's own lock (ABI 1.2, HAMI_NODE_LOCK_OWN; HAMi's Cambricon
// `cambricon.com/dsmlu.lock`) is the same machinery on another annotation
// whose value is only the RFC 3339 time: it names no owner, so it is never
// "ours already" or orphaned, and release removes it only while it still
// holds the exact value this process wrote.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cluster/cluster_state.hpp"

namespace hami::cluster {

inline constexpr std::string_view kNodeLockAnnotation = "hami.io/mutex.lock";

class NodeLockError : public std::runtime_error {
 public:
  NodeLockError(bool contention, const std::string& message)
      : std::runtime_error(message), contention_(contention) {}
  // True when another pod holds the lock (retrying later may help).
  bool contention() const { return contention_; }

 private:
  bool contention_;
};

// "2026-06-14T15:05:03Z" for a Unix time (UTC).
std::string format_rfc3339(int64_t unix_seconds);
// Parses RFC 3339 with "Z" or a ±hh:mm offset (fractional seconds allowed);
// nullopt when malformed.
std::optional<int64_t> parse_rfc3339(std::string_view text);
// Go's time.Duration text for whole seconds: 300 → "5m0s", 90 → "1m30s".
std::string go_duration(int64_t seconds);

enum class NodeLockOutcome { acquired, contention, error };

struct NodeLockOptions {
  // The node annotation, and whether its value names the owner pod
  // ("<time>,<namespace>,<name>") or is the time alone.
  std::string annotation = std::string(kNodeLockAnnotation);
  bool owner_in_value = true;
  int64_t expiry_seconds = 300;
  // Attempts of the conditional write when it loses a race with an
  // unrelated node update (HAMi: 5).
  int max_attempts = 5;
  // Told the outcome of every lock() and how long it took, waiting for
  // this process's other acquirers of the node included; may be empty.
  std::function<void(NodeLockOutcome, std::chrono::nanoseconds)> observer;
};

class NodeLocker {
 public:
  using Clock = std::function<int64_t()>;  // Unix seconds

  NodeLocker(ClusterState& cluster, Clock now, NodeLockOptions options = {});

  // Returns the value written (or found, when the pod holds it already).
  // Throws NodeLockError; ClusterError NotFound when the node is unknown.
  std::string lock(std::string_view node, std::string_view namespace_, std::string_view pod);

  // Releases the lock if (and only if) this pod holds it: its owner names
  // the pod, or, for a lock without owner, its value is `written` (what
  // lock() returned; empty: never released). Never throws for a lock that
  // is absent or someone else's; returns whether a lock was removed.
  // ClusterError propagates for backend failures.
  bool release(std::string_view node, std::string_view namespace_, std::string_view pod,
               std::string_view written = {});

  const NodeLockOptions& options() const { return options_; }

 private:
  std::string acquire(std::string_view node, std::string_view namespace_, std::string_view pod);
  std::mutex& node_mutex(std::string_view node);

  ClusterState& cluster_;
  Clock now_;
  NodeLockOptions options_;
  std::mutex mutexes_mu_;
  std::unordered_map<std::string, std::unique_ptr<std::mutex>> mutexes_;
};

}  // namespace hami::cluster
