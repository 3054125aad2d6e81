#include "kube/reflector.hpp"

#include <algorithm>
#include <random>
#include <utility>

#include "k8s/json_read.hpp"
#include "kube/watch_event.hpp"
#include "log/logger.hpp"

namespace hami::kube {

namespace {

using rapidjson::Value;

const Value* member(const Value& object, std::string_view key) {
  if (!object.IsObject())
    return nullptr;
  const auto it = object.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string describe(const ApiError& e) {
  if (e.status() == 0)
    return e.message();
  std::string out = std::to_string(e.status());
  if (!e.reason().empty())
    out += " " + e.reason();
  if (!e.message().empty())
    out += ": " + e.message();
  return out;
}

uint64_t seed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

// splitmix64: a small per-reflector generator for timeouts and jitter.
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A 410 on a list continuation: the whole list is asked once more, unpaged.
struct ContinueExpired {};

// The list's resourceVersion is no longer (410 Expired, "Gone" before
// Kubernetes 1.18) or not yet ("Too large resource version", a 504
// Timeout) available.
bool version_unavailable(const ApiError& e) {
  if (e.status() == 410)
    return true;
  return e.status() == 504 && e.message().find("Too large resource version") != std::string::npos;
}

std::string join_query(const std::string& path, const std::vector<std::string>& params) {
  std::string out = path;
  char separator = '?';
  for (const std::string& p : params) {
    out += separator;
    out += p;
    separator = '&';
  }
  return out;
}

}  // namespace

Reflector::Reflector(std::shared_ptr<ApiClient> client, ReflectorOptions options,
                     ReflectorHandlers handlers)
    : client_(std::move(client)),
      options_(std::move(options)),
      handlers_(std::move(handlers)),
      random_state_(seed()) {
  if (!options_.copy) {
    options_.copy = [](const Value& object, rapidjson::Document::AllocatorType& a) {
      return Value(object, a);
    };
  }
  if (options_.page_size <= 0)
    options_.page_size = 500;
  if (options_.watch_timeout.count() <= 0)
    options_.watch_timeout = std::chrono::seconds(1);
  if (options_.backoff_initial.count() <= 0)
    options_.backoff_initial = std::chrono::milliseconds(1);
  options_.backoff_max = std::max(options_.backoff_max, options_.backoff_initial);
}

Reflector::~Reflector() {
  stop();
}

void Reflector::start() {
  if (thread_.joinable())
    return;
  thread_ = std::jthread([this](std::stop_token stop) { run(std::move(stop)); });
}

void Reflector::request_stop() {
  if (!thread_.joinable())
    return;
  thread_.request_stop();
  {
    // Wakes a backoff wait (the stop_token wait also notices on its own;
    // taking the lock closes the window between its check and its sleep).
    std::lock_guard guard(wait_mu_);
  }
  wait_cv_.notify_all();
}

void Reflector::stop() {
  if (!thread_.joinable())
    return;
  request_stop();
  thread_.join();
  thread_ = std::jthread();
}

ReflectorStatus Reflector::status() const {
  std::lock_guard guard(mu_);
  return status_;
}

std::string Reflector::resource_version() const {
  std::lock_guard guard(mu_);
  return resource_version_;
}

void Reflector::call(const char* what, const std::function<void()>& fn) const {
  try {
    fn();
  } catch (const std::exception& e) {
    if (options_.logger)
      options_.logger->error("cache handler failed",
                             {{"resource", options_.name}, {"handler", what}, {"error", e.what()}});
  }
}

void Reflector::set_status(bool synced, std::string error, int attempts) {
  ReflectorStatus copy;
  {
    std::lock_guard guard(mu_);
    if (status_.synced == synced && status_.error == error && status_.attempts == attempts)
      return;
    status_.synced = synced;
    status_.error = std::move(error);
    status_.attempts = attempts;
    copy = status_;
  }
  if (handlers_.status)
    call("status", [&] { handlers_.status(copy); });
}

void Reflector::recovered() {
  failures_ = 0;
  set_status(status().synced, "", 0);
}

std::string Reflector::query_selectors() const {
  std::string q;
  if (!options_.field_selector.empty())
    q += "&fieldSelector=" + query_escape(options_.field_selector);
  if (!options_.label_selector.empty())
    q += "&labelSelector=" + query_escape(options_.label_selector);
  return q;
}

std::chrono::milliseconds Reflector::next_backoff() {
  backoff_ = backoff_.count() == 0 ? options_.backoff_initial
                                   : std::min(backoff_ * 2, options_.backoff_max);
  // Jitter (up to +50 %) keeps many clients from reconnecting in lockstep.
  const auto span = static_cast<uint64_t>(backoff_.count() / 2) + 1;
  return backoff_ + std::chrono::milliseconds(next_random(random_state_) % span);
}

void Reflector::wait(std::chrono::milliseconds delay, std::stop_token stop) {
  std::unique_lock lock(wait_mu_);
  wait_cv_.wait_for(lock, stop, delay, [] { return false; });
}

void Reflector::run(std::stop_token stop) {
  bool need_list = true;
  int expired_in_a_row = 0;
  const auto fail = [&](const std::string& what, const std::string& error) {
    ++failures_;
    const ReflectorStatus current = status();
    const std::string text = what + " failed (attempt " + std::to_string(failures_) + "): " + error;
    if (options_.logger)
      options_.logger->warn(
          "cache " + what + " failed",
          {{"resource", options_.name}, {"attempt", std::to_string(failures_)}, {"error", error}});
    set_status(current.synced, text, failures_);
  };

  while (!stop.stop_requested()) {
    if (need_list) {
      try {
        if (!list(stop))
          return;  // stopped between pages
      } catch (const ApiError& e) {
        fail("list", describe(e));
        wait(next_backoff(), stop);
        continue;
      } catch (const std::exception& e) {
        fail("list", e.what());
        wait(next_backoff(), stop);
        continue;
      }
      need_list = false;
      failures_ = 0;
      set_status(true, "", 0);
      if (stop.stop_requested())
        return;
    }
    const WatchResult result = watch_once(stop);
    if (stop.stop_requested())
      return;
    if (result.delivered || result.end == WatchEnd::Normal) {
      backoff_ = std::chrono::milliseconds(0);
      expired_in_a_row = 0;
      recovered();
    }
    switch (result.end) {
      case WatchEnd::Normal:
        break;
      case WatchEnd::Expired:
        need_list = true;
        if (options_.logger)
          options_.logger->info("cache relisting",
                                {{"resource", options_.name}, {"reason", result.error}});
        if (handlers_.restarted)
          call("restarted", [&] { handlers_.restarted(true); });
        // A server that keeps answering 410 right after a fresh list must
        // not be hammered.
        if (++expired_in_a_row > 1)
          wait(next_backoff(), stop);
        break;
      case WatchEnd::Failed:
        fail("watch", result.error);
        if (handlers_.restarted)
          call("restarted", [&] { handlers_.restarted(false); });
        wait(next_backoff(), stop);
        break;
    }
  }
}

std::string Reflector::list_version() const {
  if (version_unavailable_)
    return {};
  const std::string last = resource_version();
  return last.empty() ? std::string("0") : last;
}

bool Reflector::list(std::stop_token stop) {
  const std::string version = list_version();
  // Decided by the first attempt, kept for the fallback, as client-go's
  // pager does: a list at a version the watch cache can serve is unpaged.
  const bool paged = paginated_ || version.empty() || version == "0";
  try {
    return list_at(stop, version, paged);
  } catch (const ApiError& e) {
    if (version.empty() || !version_unavailable(e))
      throw;
    version_unavailable_ = true;
    if (options_.logger)
      options_.logger->info(
          "cache list version unavailable; listing the latest",
          {{"resource", options_.name}, {"resourceVersion", version}, {"error", describe(e)}});
  }
  return list_at(stop, "", paged);
}

bool Reflector::list_at(std::stop_token stop, const std::string& version, bool paged) {
  // One unpaged list after an expired continuation (client-go's pager
  // does the same); a 410 on that one is a list failure.
  for (int attempt = 0;; ++attempt) {
    const bool by_pages = paged && attempt == 0;
    try {
      Relist relist;
      auto& a = relist.objects.GetAllocator();
      std::string continue_token;
      bool first = true;
      do {
        std::vector<std::string> params;
        if (by_pages)
          params.push_back("limit=" + std::to_string(options_.page_size));
        if (!continue_token.empty())
          params.push_back("continue=" + query_escape(continue_token));
        else if (!version.empty())
          params.push_back("resourceVersion=" + query_escape(version));
        if (!options_.field_selector.empty())
          params.push_back("fieldSelector=" + query_escape(options_.field_selector));
        if (!options_.label_selector.empty())
          params.push_back("labelSelector=" + query_escape(options_.label_selector));
        ApiResponse reply;
        if (stop.stop_requested())
          return false;
        try {
          reply = client_->get(join_query(options_.path, params));
        } catch (const ApiError& e) {
          if (e.status() == 410 && !continue_token.empty() && attempt == 0)
            throw ContinueExpired{};
          throw;
        }
        rapidjson::Document page;
        page.Parse(reply.body.data(), reply.body.size());
        if (page.HasParseError() || !page.IsObject())
          throw ApiError(reply.status, "", options_.name + " list reply is not a JSON object");
        if (const Value* meta = member(page, "metadata")) {
          if (first)
            relist.resource_version = k8s::json::string_or_empty(*meta, "resourceVersion");
          continue_token = k8s::json::string_or_empty(*meta, "continue");
        } else {
          continue_token.clear();
        }
        if (first && !continue_token.empty() && version == "0")
          paginated_ = true;
        first = false;
        if (const Value* items = member(page, "items"); items != nullptr && items->IsArray()) {
          for (const Value& item : items->GetArray()) {
            if (item.IsObject())
              relist.objects.PushBack(options_.copy(item, a), a);
          }
        }
      } while (!continue_token.empty());

      std::unordered_map<std::string, std::string> known;
      known.reserve(relist.objects.Size());
      for (const Value& object : relist.objects.GetArray()) {
        std::string key = object_key(object);
        if (!key.empty())
          known.insert_or_assign(std::move(key), resource_version_of(object));
      }
      for (const auto& [key, _] : known_) {
        if (!known.contains(key))
          relist.deleted.push_back(key);
      }
      known_ = std::move(known);
      version_unavailable_ = false;
      {
        std::lock_guard guard(mu_);
        resource_version_ = relist.resource_version;
      }
      if (handlers_.replace)
        call("replace", [&] { handlers_.replace(relist); });
      return true;
    } catch (const ContinueExpired&) {
      if (options_.logger)
        options_.logger->info("cache list continuation expired; listing without pages",
                              {{"resource", options_.name}});
    }
  }
}

Reflector::WatchResult Reflector::watch_once(std::stop_token stop) {
  WatchResult result;
  const auto t = static_cast<uint64_t>(options_.watch_timeout.count());
  const uint64_t timeout = t + next_random(random_state_) % t;
  const std::string query =
      options_.path + "?watch=1&resourceVersion=" + query_escape(resource_version()) +
      "&allowWatchBookmarks=true&timeoutSeconds=" + std::to_string(timeout) + query_selectors();
  bool ended_by_event = false;
  try {
    client_->watch(
        query,
        [&](std::string_view line) {
          if (line.empty() || line == "\r")
            return true;
          if (!handle_line(line, result)) {
            ended_by_event = true;
            return false;
          }
          return true;
        },
        stop);
  } catch (const ApiError& e) {
    if (e.status() == 410) {
      result.end = WatchEnd::Expired;
    } else {
      result.end = WatchEnd::Failed;
    }
    result.error = describe(e);
    return result;
  } catch (const std::exception& e) {
    result.end = WatchEnd::Failed;
    result.error = e.what();
    return result;
  }
  if (!ended_by_event)
    result.end = WatchEnd::Normal;
  return result;
}

// Returns false to end the stream (result.end / error say why).
bool Reflector::handle_line(std::string_view line, WatchResult& result) {
  WatchEvent event;
  try {
    event = parse_watch_event(line);
  } catch (const WatchEventError& e) {
    result.end = WatchEnd::Failed;
    result.error = e.what();
    return false;
  }
  if (event.type == WatchEventType::Error) {
    result.end = event.code == 410 ? WatchEnd::Expired : WatchEnd::Failed;
    result.error = "ERROR event " + std::to_string(event.code) +
                   (event.reason.empty() ? "" : " " + event.reason) + ": " + event.message;
    return false;
  }
  if (!result.delivered) {
    // The watch works: whatever failed before is over.
    result.delivered = true;
    recovered();
  }
  if (!event.resource_version.empty()) {
    std::lock_guard guard(mu_);
    resource_version_ = event.resource_version;
  }
  if (event.type == WatchEventType::Bookmark)
    return true;

  rapidjson::Document copy;
  Value object = options_.copy(event.object(), copy.GetAllocator());
  std::string key = object_key(event.object());
  switch (event.type) {
    case WatchEventType::Added:
      known_.insert_or_assign(std::move(key), event.resource_version);
      if (handlers_.added)
        call("added", [&] { handlers_.added(object); });
      break;
    case WatchEventType::Modified:
      known_.insert_or_assign(std::move(key), event.resource_version);
      if (handlers_.modified)
        call("modified", [&] { handlers_.modified(object); });
      break;
    case WatchEventType::Deleted:
      known_.erase(key);
      if (handlers_.deleted)
        call("deleted", [&] { handlers_.deleted(object); });
      break;
    default:
      break;
  }
  return true;
}

}  // namespace hami::kube
