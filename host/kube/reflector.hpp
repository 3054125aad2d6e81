// Reflector: keeps a consumer in step with one API resource collection by
// list + watch, the way client-go's reflector does.
//
//   - List, at the resourceVersion client-go picks:
//       first list                    resourceVersion=0: any version, so the
//                                     API server answers from its watch
//                                     cache (and then ignores limit);
//       a relist                      the last resourceVersion seen, without
//                                     limit: not older than that, the watch
//                                     cache again;
//       after a list at a version     unset: a consistent read, at once and
//       answered 410 Expired or       until a list works.
//       "Too large resource version"
//     Lists at 0 or unset ask limit=N, and so do all of them once the first
//     list came back in pages (a server without watch cache). Pages follow
//     the continue token (without resourceVersion; all share the first
//     page's); a reply without one is the whole list. A 410 on a
//     continuation is followed once by the whole list at the same version
//     without limit.
//   - Watch: GET <path>?watch=1&resourceVersion=<last>&allowWatchBookmarks=true
//     &timeoutSeconds=<random in [t, 2t)>. ADDED/MODIFIED/DELETED go to the
//     handlers; BOOKMARK only advances the resourceVersion (its object
//     carries nothing else and changes no object).
//   - 410 Expired (HTTP status or ERROR event) → relist at once (with
//     backoff when it repeats without progress). Other ERROR events, a
//     dropped stream, a transport error or an unreadable line → re-watch
//     from the last resourceVersion after a backoff (initial, doubling to
//     max, jittered by up to +50 %; reset by a healthy watch, one that
//     ended normally or delivered events). A normal end (the server's
//     timeoutSeconds) → re-watch at once.
//   - A relist hands over every object plus the keys known before that are
//     gone now, so deletions missed while disconnected are delivered.
//   - No periodic relist: a watch resumed from the last resourceVersion
//     misses nothing, and one that cannot resume gets 410 and relists.
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
  // One list at `version`, in pages of options.page_size when `paged`.
  bool list_at(std::stop_token stop, const std::string& version, bool paged);
  std::string list_version() const;
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
  int failures_ = 0;                  // consecutive failed lists / watches
  bool paginated_ = false;            // the resourceVersion=0 list came back in pages
  bool version_unavailable_ = false;  // a list at the last version answered 410
  uint64_t random_state_;

  mutable std::mutex mu_;  // guards status_ and resource_version_
  ReflectorStatus status_;
  std::string resource_version_;

  std::mutex wait_mu_;
  std::condition_variable_any wait_cv_;
  std::jthread thread_;
};

}  // namespace hami::kube
