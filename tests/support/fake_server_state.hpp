// What the fake API server's request threads share: the store, the open
// watches, the recorded requests and the injected faults, all behind one
// mutex. `changed` is notified on every store write, every watch command,
// watch registration and shutdown.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "fake_apiserver.hpp"
#include "fake_json.hpp"
#include "fake_kinds.hpp"
#include "fake_selectors.hpp"
#include "fake_store.hpp"

namespace hami::testing::fake {

// One open watch stream, as the commands of FakeApiServer see it.
struct WatchSlot {
  bool bookmarks = false;  // allowWatchBookmarks
  bool drop = false;       // drop_watches(): cut the stream
  bool bookmark_pending = false;
  std::optional<Json> error;  // send_watch_error(): the Status to send
};

struct FaultRule {
  std::string method;  // empty: any
  std::string path_prefix;
  int status = 500;
  int remaining = 0;
  std::optional<int> retry_after_seconds;
  bool after_applying = false;  // the request is carried out, then failed
};

struct ServerState {
  explicit ServerState(const FakeApiServerOptions& options)
      : store(options.history), token(options.token), watch_cache(options.watch_cache) {}

  mutable std::mutex mu;
  mutable std::condition_variable changed;
  Store store;
  std::vector<std::shared_ptr<WatchSlot>> watches;
  std::vector<RecordedRequest> requests;
  std::vector<FaultRule> faults;
  std::string token;
  const bool watch_cache;
  std::chrono::milliseconds latency{0};
  bool refusing = false;
  bool stopping = false;
  size_t active_handlers = 0;
};

}  // namespace hami::testing::fake
