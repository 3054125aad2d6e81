#include "cluster/node_lock.hpp"

#include <charconv>
#include <ctime>
#include <optional>
#include <vector>

namespace hami::cluster {

namespace {

struct LockValue {
  int64_t time = 0;
  bool legacy = false;  // only a timestamp, no owner
  std::string namespace_;
  std::string name;
};

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

std::optional<LockValue> parse_lock(std::string_view value) {
  const auto parts = split(value, ',');
  if (parts.size() != 1 && parts.size() != 3)
    return std::nullopt;
  const auto time = parse_rfc3339(parts[0]);
  if (!time)
    return std::nullopt;
  LockValue lock;
  lock.time = *time;
  if (parts.size() == 1) {
    lock.legacy = true;
  } else {
    lock.namespace_ = std::string(parts[1]);
    lock.name = std::string(parts[2]);
  }
  return lock;
}

bool parse_int(std::string_view text, int& out) {
  if (text.empty())
    return false;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), out);
  return res.ec == std::errc() && res.ptr == text.data() + text.size();
}

// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's
// algorithm), so parsing does not depend on the process time zone.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3u : 9u)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

std::string format_rfc3339(int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf, n);
}

std::optional<int64_t> parse_rfc3339(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!parse_int(s.substr(0, 4), year) || !parse_int(s.substr(5, 2), month) ||
      !parse_int(s.substr(8, 2), day) || !parse_int(s.substr(11, 2), hour) ||
      !parse_int(s.substr(14, 2), minute) || !parse_int(s.substr(17, 2), second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    const size_t digits = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
      ++pos;
    if (pos == digits)
      return std::nullopt;
  }
  int64_t offset = 0;
  const std::string_view zone = s.substr(pos);
  if (zone == "Z" || zone == "z") {
    offset = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    int oh = 0, om = 0;
    if (!parse_int(zone.substr(1, 2), oh) || !parse_int(zone.substr(4, 2), om) || oh > 23 ||
        om > 59) {
      return std::nullopt;
    }
    offset = (oh * 3600 + om * 60) * (zone[0] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  const int64_t days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return days * 86400 + hour * 3600 + minute * 60 + second - offset;
}

std::string go_duration(int64_t seconds) {
  if (seconds == 0)
    return "0s";
  std::string out;
  if (seconds < 0) {
    out = "-";
    seconds = -seconds;
  }
  const int64_t h = seconds / 3600;
  const int64_t m = (seconds % 3600) / 60;
  const int64_t s = seconds % 60;
  if (h > 0)
    out += std::to_string(h) + "h";
  if (h > 0 || m > 0)
    out += std::to_string(m) + "m";
  out += std::to_string(s) + "s";
  return out;
}

NodeLocker::NodeLocker(ClusterState& cluster, Clock now, NodeLockOptions options)
    : cluster_(cluster), now_(std::move(now)), options_(options) {}

std::mutex& NodeLocker::node_mutex(std::string_view node) {
  std::lock_guard guard(mutexes_mu_);
  auto& slot = mutexes_[std::string(node)];
  if (!slot)
    slot = std::make_unique<std::mutex>();
  return *slot;
}

std::string NodeLocker::lock(std::string_view node, std::string_view namespace_,
                             std::string_view pod) {
  if (!options_.observer)
    return acquire(node, namespace_, pod);
  const auto started = std::chrono::steady_clock::now();
  const auto report = [&](NodeLockOutcome outcome) {
    options_.observer(outcome, std::chrono::steady_clock::now() - started);
  };
  std::string written;
  try {
    written = acquire(node, namespace_, pod);
  } catch (const NodeLockError& e) {
    report(e.contention() ? NodeLockOutcome::contention : NodeLockOutcome::error);
    throw;
  } catch (...) {
    report(NodeLockOutcome::error);
    throw;
  }
  report(NodeLockOutcome::acquired);
  return written;
}

std::string NodeLocker::acquire(std::string_view node, std::string_view namespace_,
                                std::string_view pod) {
  const std::string& key = options_.annotation;
  // One acquirer per node in this process; other processes are kept out by
  // the resourceVersion precondition of every write.
  std::lock_guard guard(node_mutex(node));
  const auto contention = [&] {
    // HAMi's text for the shared lock; a vendor's own lock is named.
    const std::string what =
        key == kNodeLockAnnotation ? std::string("node lock") : "node lock " + key;
    return NodeLockError(true, "node " + std::string(node) + " has been locked within " +
                                   go_duration(options_.expiry_seconds) + ": " + what +
                                   " contention");
  };
  std::string last_error = "conflicting updates";
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    // Each attempt judges the node as it is now: after a conflict the
    // backend's view is the server's, and the lock found there may be
    // expired or orphaned rather than live.
    auto current = cluster_.node(node);
    // A lock the cache shows may already be gone (the device plugin has
    // just released it): contention is only answered after the node, read
    // live, still shows one.
    bool live = false;
    while (true) {
      if (!current) {
        throw ClusterError(ErrorKind::NotFound, "node " + std::string(node) + " not found");
      }
      const auto value = current->annotation(key);
      if (!value)
        break;
      const auto parsed = parse_lock(*value);
      if (!parsed || (!options_.owner_in_value && !parsed->legacy)) {
        throw NodeLockError(false, "node " + std::string(node) +
                                       " has an invalid lock annotation " + key + "=\"" +
                                       std::string(*value) + "\"");
      }
      const bool expired = now_() - parsed->time > options_.expiry_seconds;
      // Ours already (re-entrant, or a write whose reply was lost).
      if (!expired && !parsed->legacy && parsed->namespace_ == namespace_ && parsed->name == pod)
        return std::string(*value);
      const bool owner_gone =
          !parsed->legacy && !cluster_.pod_exists(parsed->namespace_, parsed->name);
      if (expired || owner_gone)
        break;  // taken over below, in one conditional write
      if (live)
        throw contention();
      try {
        current = cluster_.node_live(node);
      } catch (const ClusterError& e) {
        if (e.kind() == ErrorKind::NotFound)
          throw;
        throw contention();
      }
      live = true;
    }
    std::string written = format_rfc3339(now_());
    if (options_.owner_in_value)
      written += "," + std::string(namespace_) + "," + std::string(pod);
    try {
      cluster_.patch_node_annotations(node, {{key, written}}, current->resource_version());
      return written;
    } catch (const ClusterError& e) {
      if (e.kind() != ErrorKind::Conflict)
        throw;
      last_error = e.what();
    }
  }
  throw NodeLockError(false, "failed to lock node " + std::string(node) + ": " + last_error);
}

bool NodeLocker::release(std::string_view node, std::string_view namespace_, std::string_view pod,
                         std::string_view written) {
  const std::string& key = options_.annotation;
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    const auto current = cluster_.node(node);
    if (!current)
      return false;
    const auto value = current->annotation(key);
    if (!value)
      return false;
    // A lock without owner is this pod's only while it holds what this
    // pod's bind wrote (HAMi's Cambricon release removed anyone's, X2).
    if (!options_.owner_in_value && (written.empty() || *value != written))
      return false;
    const auto parsed = parse_lock(*value);
    // Never remove another pod's lock (HAMi issue #1433); legacy values carry
    // no owner and are released by whoever holds the bind.
    if (parsed && !parsed->legacy && (parsed->namespace_ != namespace_ || parsed->name != pod)) {
      return false;
    }
    if (!parsed)
      return false;
    try {
      cluster_.patch_node_annotations(node, {{key, std::nullopt}}, current->resource_version());
      return true;
    } catch (const ClusterError& e) {
      if (e.kind() != ErrorKind::Conflict)
        throw;
    }
  }
  return false;
}

}  // namespace hami::cluster
