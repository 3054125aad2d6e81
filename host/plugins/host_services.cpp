#include "plugins/host_services.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>
#include <utility>

namespace hami::host {
namespace {

std::string_view level_word(int32_t level) {
  switch (level) {
    case HAMI_LOG_DEBUG:
      return "debug";
    case HAMI_LOG_INFO:
      return "info";
    case HAMI_LOG_WARN:
      return "warn";
    default:
      return "error";
  }
}

void log_to_stderr(int32_t level, std::string_view source, std::string_view message) {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  std::string line;
  line.reserve(message.size() + source.size() + 48);
  line.append(stamp).append(" ").append(level_word(level)).append(" [");
  line.append(source).append("] ").append(message).append("\n");
  // One write per line, so concurrent plugin threads never interleave.
  std::fwrite(line.data(), 1, line.size(), stderr);
}

int64_t system_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The C side of hami_host_api. Plugins call these; nothing may throw back
// into plugin code.
void api_log(void* host_ctx, int32_t level, hami_str message) {
  const auto* ctx = static_cast<const HostContext*>(host_ctx);
  if (ctx == nullptr || ctx->services == nullptr) {
    return;
  }
  const std::string_view text =
      message.ptr == nullptr ? std::string_view{} : std::string_view{message.ptr, message.len};
  ctx->services->log(level, ctx->source, text);
}

int64_t api_now_unix(void* host_ctx) {
  const auto* ctx = static_cast<const HostContext*>(host_ctx);
  if (ctx == nullptr || ctx->services == nullptr) {
    return system_now();
  }
  return ctx->services->now_unix();
}

constexpr hami_host_api kApi{static_cast<uint32_t>(sizeof(hami_host_api)), &api_log, &api_now_unix};

}  // namespace

HostServices::HostServices() : HostServices(&log_to_stderr, &system_now) {}

HostServices::HostServices(LogSink log, Clock clock)
    : log_(std::move(log)), clock_(std::move(clock)) {}

void HostServices::set_log_sink(LogSink log) {
  std::unique_lock lock(mutex_);
  log_ = std::move(log);
}

void HostServices::set_clock(Clock clock) {
  std::unique_lock lock(mutex_);
  clock_ = std::move(clock);
}

void HostServices::log(int32_t level, std::string_view source,
                       std::string_view message) const noexcept {
  try {
    std::shared_lock lock(mutex_);
    if (log_) {
      log_(level, source, message);
    }
  } catch (...) {
    // A failing log sink must not take down the caller (often plugin code).
  }
}

int64_t HostServices::now_unix() const noexcept {
  try {
    std::shared_lock lock(mutex_);
    if (clock_) {
      return clock_();
    }
  } catch (...) {
    // Fall through to the system clock.
  }
  return system_now();
}

const hami_host_api& HostServices::api() noexcept {
  return kApi;
}

}  // namespace hami::host
