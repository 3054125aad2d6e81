// HostServices: what the host offers plugins through hami_host_api — a
// logger and a clock — as one object the application owns.
//
// Lifetime: must outlive every PluginRegistry / handle loaded with it.
// Threading: log() and now_unix() may be called from any thread, by plugins
// too. set_log_sink / set_clock may be called at any time (tests move the
// clock between calls); they are serialised against readers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "hami/plugin.h"

namespace hami::host {

class HostServices {
 public:
  // level is HAMI_LOG_*; source is the configured plugin name ("plugins"
  // for the loader's own messages).
  using LogSink =
      std::function<void(int32_t level, std::string_view source, std::string_view message)>;
  using Clock = std::function<int64_t()>;

  // Logs one line per event to stderr; the system wall clock.
  HostServices();
  HostServices(LogSink log, Clock clock);

  void set_log_sink(LogSink log);
  void set_clock(Clock clock);

  void log(int32_t level, std::string_view source, std::string_view message) const noexcept;
  [[nodiscard]] int64_t now_unix() const noexcept;

  // The hami_host_api table every plugin gets; host_ctx must point at a
  // HostContext.
  static const hami_host_api& api() noexcept;

 private:
  mutable std::shared_mutex mutex_;
  LogSink log_;
  Clock clock_;
};

// The host_ctx handed to a plugin: the services and the name its log lines
// are attributed to. Owned by the plugin's library record, so it stays valid
// while the library is loaded.
struct HostContext {
  const HostServices* services;
  std::string source;
};

}  // namespace hami::host
