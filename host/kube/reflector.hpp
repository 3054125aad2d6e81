// Reflector: keeps a consumer in step with one API resource collection by
// list + watch, the way client-go's reflector does.
//
//   - List: GET <path>?limit=N[&continue=…] page by page; all pages share
//     the first page's resourceVersion. A 410 on a continuation restarts
//     the list from the first page once at once; a second one in a row is
//     a list failure (backoff, then a fresh list).
//   - Watch: GET <path>?watch=1&resourceVersion=<last>&allowWatchBookmarks=true
//     &timeoutSeconds=<random in [t, 2t)>. ADDED/MODIFIED/DELETED go to the
//     handlers; BOOKMARK only advances the resourceVersion.
//   - 410 Expired (HTTP status or ERROR event) → relist at once (with
//     backoff when it repeats without progress). Other ERROR events, a
//     dropped stream, a transport error or an unreadable line → re-watch
//     from the last resourceVersion after a backoff (initial, doubling to
//     max, jittered by up to +50 %; reset by a healthy watch, one that
//     ended normally or delivered events). A normal end (the server's
//     timeoutSeconds) → re-watch at once.
//   - A relist hands over every object plus the keys known before that are
//     gone now, so deletions missed while disconnected are delivered.
//   - Resync (options.resync): a full relist at the first normal watch end
//     after that period; reported through `restarted` like any relist.
//
// Handlers run on the reflector's own thread (std::jthread), one at a time,
// in stream order; an exception from a handler is logged and ignored.
// stop() is prompt: watches end within about a second (the client's
// stop_token watch), backoff waits at once; an ordinary list request in
// flight finishes first (bounded by the client's request timeout).
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "kube/api_client.hpp"

namespace hami::log {
class Logger;
}

namespace hami::kube {

struct ReflectorOptions {
  std::string name;            // for logs and status, e.g. "pods"
  std::string path;            // collection path, e.g. "/api/v1/pods"
  std::string field_selector;  // unescaped, e.g. "metadata.name=kube-scheduler"; empty: none
  std::string label_selector;  // unescaped; empty: none
  int page_size = 500;
  std::chrono::seconds watch_timeout{300};  // server-side timeoutSeconds: random in [t, 2t)
  std::chrono::milliseconds backoff_initial{200};
  std::chrono::milliseconds backoff_max{std::chrono::seconds(30)};
  // Resync: once this long has passed since the last list, the next normal
  // end of a watch is followed by a full relist instead of a re-watch, so
  // an event the stream never delivered is still caught up with (the relist
  // hands over deletions as usual). Zero: never.
  std::chrono::milliseconds resync{0};
  // Copies each listed or watched object into the allocator given (the
  // consumer's chance to trim it); default: a whole copy.
  std::function<rapidjson::Value(const rapidjson::Value&, rapidjson::Document::AllocatorType&)>
      copy;
  const log::Logger* logger = nullptr;  // must outlive the reflector
};

struct ReflectorStatus {
  bool synced = false;  // a full list has completed at least once
  // The last failure while it persists, e.g. "list failed (attempt 3):
  // connection refused"; empty once a list works again or a watch delivers
  // an event.
  std::string error;
  int attempts = 0;  // consecutive failures
};

// The outcome of a (re)list.
struct Relist {
  rapidjson::Document objects{rapidjson::kArrayType};  // every object, copied by options.copy
  std::vector<std::string> deleted;                    // keys (object_key) known before, absent now
  std::string resource_version;                        // of the list
};

struct ReflectorHandlers {
  std::function<void(Relist& relist)> replace;
  std::function<void(const rapidjson::Value& object)> added;
  std::function<void(const rapidjson::Value& object)> modified;
  std::function<void(const rapidjson::Value& object)> deleted;  // the last state the server had
  std::function<void(const ReflectorStatus& status)> status;    // whenever the status changes
  // The collection is being followed again after a failure: relist = true
  // for a relist after 410 Expired, false for a re-watch after a dropped
  // stream or an error. Not called when a watch ends normally.
  std::function<void(bool relist)> restarted;
};

class Reflector {
 public:
  Reflector(std::shared_ptr<ApiClient> client, ReflectorOptions options,
            ReflectorHandlers handlers);
  ~Reflector();  // stops and joins
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  void start();         // no-op when running
  void request_stop();  // asks the thread to end, without waiting
  void stop();          // idempotent; returns once the thread has ended

  ReflectorStatus status() const;
  std::string resource_version() const;  // the last one seen ("" before the first list)
  const std::string& name() const { return options_.name; }

 private:
  enum class WatchEnd { Normal, Expired, Failed };
  struct WatchResult {
    WatchEnd end = WatchEnd::Normal;
    bool delivered = false;  // at least one event or bookmark arrived
    std::string error;
  };

  void run(std::stop_token stop);
  bool list(std::stop_token stop);  // false: stopped before it completed
  WatchResult watch_once(std::stop_token stop);
  bool handle_line(std::string_view line, WatchResult& result);
  std::string query_selectors() const;
  std::chrono::milliseconds next_backoff();
  void wait(std::chrono::milliseconds delay, std::stop_token stop);
  void set_status(bool synced, std::string error, int attempts);
  void recovered();  // clears the failure count and the status error
  void call(const char* what, const std::function<void()>& fn) const;

  std::shared_ptr<ApiClient> client_;
  ReflectorOptions options_;
  ReflectorHandlers handlers_;

  // Owned by the reflector thread.
  std::unordered_map<std::string, std::string> known_;  // key → resourceVersion
  std::chrono::milliseconds backoff_{0};
  int failures_ = 0;  // consecutive failed lists / watches
  uint64_t random_state_;

  mutable std::mutex mu_;  // guards status_ and resource_version_
  ReflectorStatus status_;
  std::string resource_version_;

  std::mutex wait_mu_;
  std::condition_variable_any wait_cv_;
  std::jthread thread_;
};

}  // namespace hami::kube
