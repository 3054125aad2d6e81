#include "fake_watch.hpp"

#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/StreamSocket.h>

#include <algorithm>
#include <charconv>
#include <ostream>

#include "fake_status.hpp"

namespace hami::testing::fake {
namespace {

using Clock = std::chrono::steady_clock;

// How often an idle watch looks whether its client has gone away.
constexpr std::chrono::milliseconds kIdleCheck{100};

struct Filter {
  const KindInfo* kind = nullptr;
  std::string ns;
  Selector fields;
  Selector labels;

  bool passes(const Json& object) const {
    if (!ns.empty() && meta_string(object, "namespace") != ns) {
      return false;
    }
    return fields.matches(object) && labels.matches(object);
  }
};

std::string event_line(std::string_view type, const Json& object) {
  Json e = Json::object();
  e["type"] = std::string(type);
  e["object"] = object;
  return e.dump() + "\n";
}

// The events of the writes after `after` as this watch sees them. Caller
// holds the state mutex.
void collect(const Store& store, const Filter& filter, uint64_t after,
             std::vector<std::string>& lines) {
  const auto& history = store.history();
  auto it = std::upper_bound(
      history.begin(), history.end(), after,
      [](uint64_t rev, const HistoryEntry& entry) { return rev < entry.revision; });
  for (; it != history.end(); ++it) {
    if (it->kind != filter.kind) {
      continue;
    }
    const Json& object = *it->object;
    if (it->type == EventType::deleted) {
      if (filter.passes(object)) {
        lines.push_back(event_line("DELETED", object));
      }
      continue;
    }
    const bool now = filter.passes(object);
    const bool before = it->previous != nullptr && filter.passes(*it->previous);
    if (now && before) {
      lines.push_back(event_line("MODIFIED", object));
    } else if (now) {
      lines.push_back(event_line("ADDED", object));
    } else if (before) {
      // Leaving the selection: the previous state at this revision.
      Json gone = *it->previous;
      metadata(gone)["resourceVersion"] = std::to_string(it->revision);
      lines.push_back(event_line("DELETED", gone));
    }
  }
}

bool peer_gone(Poco::Net::StreamSocket& socket) {
  try {
    // A watch client sends nothing while it reads; readable means EOF,
    // a reset or a TLS close_notify.
    return socket.poll(Poco::Timespan(0),
                       Poco::Net::Socket::SELECT_READ | Poco::Net::Socket::SELECT_ERROR);
  } catch (const Poco::Exception&) {
    return true;
  }
}

bool write_lines(std::ostream& out, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    out << line;
    out.flush();
    if (!out) {
      return false;
    }
  }
  return true;
}

void send_status(Poco::Net::HTTPServerResponse& response, const Json& status) {
  const std::string body = status.dump();
  response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status["code"].get<int>()));
  response.setContentType("application/json");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.send() << body;
}

}  // namespace

Json bookmark_object(const KindInfo& kind, const std::string& api_version, uint64_t revision,
                     bool initial_events_end) {
  Json o = Json::object();
  o["kind"] = std::string(kind.kind);
  o["apiVersion"] = api_version;
  Json meta = Json::object();
  meta["resourceVersion"] = std::to_string(revision);
  meta["creationTimestamp"] = nullptr;
  if (initial_events_end) {
    meta["annotations"] = Json::object({{"k8s.io/initial-events-end", "true"}});
  }
  o["metadata"] = std::move(meta);
  if (kind.kind == "Pod") {
    o["spec"] = Json::object({{"containers", nullptr}});
    o["status"] = Json::object();
  }
  return o;
}

void serve_watch(ServerState& state, const Route& route, const Query& query,
                 Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                 RecordedRequest record) {
  std::string error;
  auto fields = Selector::parse_fields(query.get("fieldSelector"), *route.kind, error);
  auto labels = fields ? Selector::parse_labels(query.get("labelSelector"), error) : std::nullopt;
  const std::string rv_text = query.get("resourceVersion");
  uint64_t from = 0;
  const bool initial = rv_text.empty() || rv_text == "0" || query.flag("sendInitialEvents");
  if (fields && labels && !initial) {
    const auto [p, ec] = std::from_chars(rv_text.data(), rv_text.data() + rv_text.size(), from);
    if (ec != std::errc() || p != rv_text.data() + rv_text.size()) {
      error = "resourceVersion: Invalid value: \"" + rv_text + "\": must be a number";
    }
  }
  std::optional<Clock::time_point> deadline;
  if (query.has("timeoutSeconds")) {
    int seconds = 0;
    const std::string t = query.get("timeoutSeconds");
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), seconds);
    if (ec != std::errc() || p != t.data() + t.size() || seconds < 0) {
      error = "timeoutSeconds: invalid value \"" + t + "\"";
    } else if (seconds > 0) {
      deadline = Clock::now() + std::chrono::seconds(seconds);
    }
  }
  if (!error.empty()) {
    const Json status = status_bad_request(error);
    {
      std::lock_guard lock(state.mu);
      record.status = 400;
      state.requests.push_back(std::move(record));
    }
    send_status(response, status);
    return;
  }

  Filter filter{route.kind, route.kind->namespaced ? route.ns : std::string(), std::move(*fields),
                std::move(*labels)};
  auto slot = std::make_shared<WatchSlot>();
  slot->bookmarks = query.flag("allowWatchBookmarks");
  std::vector<std::string> lines;
  uint64_t next = 0;
  bool too_old = false;
  {
    std::lock_guard lock(state.mu);
    const Store& store = state.store;
    if (initial) {
      for (const auto& object : store.all(*route.kind)) {
        if (filter.passes(*object)) {
          lines.push_back(event_line("ADDED", *object));
        }
      }
      next = store.revision();
      if (query.flag("sendInitialEvents")) {
        lines.push_back(
            event_line("BOOKMARK", bookmark_object(*route.kind, route.api_version, next, true)));
      }
    } else if (from < store.compacted()) {
      too_old = true;
      lines.push_back(event_line("ERROR", status_too_old(from, store.compacted())));
    } else {
      next = from;
    }
    if (!too_old) {
      state.watches.push_back(slot);
      state.changed.notify_all();
    }
    record.status = 200;
    state.requests.push_back(std::move(record));
  }

  response.setChunkedTransferEncoding(true);
  response.setContentType("application/json");
  std::ostream& out = response.send();
  bool dropped = false;
  if (write_lines(out, lines) && !too_old) {
    Poco::Net::StreamSocket socket =
        dynamic_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket();
    while (true) {
      lines.clear();
      bool end = false;
      {
        std::unique_lock lock(state.mu);
        auto ready = [&] {
          return state.stopping || slot->drop || slot->error || slot->bookmark_pending ||
                 state.store.revision() > next;
        };
        auto slice = kIdleCheck;
        if (deadline) {
          slice = std::min(slice, std::chrono::duration_cast<std::chrono::milliseconds>(
                                      *deadline - Clock::now()));
          slice = std::max(slice, std::chrono::milliseconds(0));
        }
        state.changed.wait_for(lock, slice, ready);
        if (state.stopping) {
          end = true;
        } else if (slot->drop) {
          dropped = true;
          end = true;
        } else {
          const Store& store = state.store;
          if (next < store.compacted()) {
            lines.push_back(event_line("ERROR", status_too_old(next, store.compacted())));
            end = true;
          } else {
            collect(store, filter, next, lines);
            next = std::max(next, store.revision());
          }
          if (!end && slot->bookmark_pending) {
            slot->bookmark_pending = false;
            lines.push_back(event_line(
                "BOOKMARK", bookmark_object(*route.kind, route.api_version, next, false)));
          }
          if (!end && slot->error) {
            lines.push_back(event_line("ERROR", *slot->error));
            end = true;
          }
        }
      }
      if (!write_lines(out, lines) || end) {
        break;
      }
      if (deadline && Clock::now() >= *deadline) {
        break;
      }
      if (lines.empty() && peer_gone(socket)) {
        break;
      }
    }
    if (dropped) {
      // No terminating chunk: the client must see a broken stream.
      try {
        socket.shutdown();
      } catch (const Poco::Exception&) {
      }
    }
  }
  std::lock_guard lock(state.mu);
  std::erase(state.watches, slot);
  state.changed.notify_all();
}

}  // namespace hami::testing::fake
