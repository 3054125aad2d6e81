#include "fake_store.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>

namespace hami::testing::fake {

std::string_view event_type_name(EventType type) {
  switch (type) {
    case EventType::added:
      return "ADDED";
    case EventType::modified:
      return "MODIFIED";
    case EventType::deleted:
      return "DELETED";
  }
  return "";
}

std::string random_uuid() {
  std::random_device rd;
  std::array<uint8_t, 16> b{};
  for (size_t i = 0; i < b.size(); i += 4) {
    const uint32_t r = rd();
    for (size_t j = 0; j < 4; ++j) {
      b[i + j] = static_cast<uint8_t>(r >> (8 * j));
    }
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);
  std::string out;
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      out.push_back('-');
    }
    out.push_back(kHex[b[i] >> 4]);
    out.push_back(kHex[b[i] & 0x0f]);
  }
  return out;
}

std::string now_rfc3339() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf.data();
}

Store::Store(size_t history_limit) : history_limit_(history_limit == 0 ? 1 : history_limit) {}

std::string Store::key(std::string_view ns, std::string_view name) {
  std::string k(ns);
  k.push_back('/');
  k.append(name);
  return k;
}

const Json* Store::find(const KindInfo& kind, std::string_view ns, std::string_view name) const {
  auto bucket = objects_.find(kind.kind);
  if (bucket == objects_.end()) {
    return nullptr;
  }
  auto it = bucket->second.find(key(kind.namespaced ? ns : std::string_view(), name));
  return it == bucket->second.end() ? nullptr : it->second.get();
}

std::vector<std::shared_ptr<const Json>> Store::all(const KindInfo& kind) const {
  std::vector<std::shared_ptr<const Json>> out;
  auto bucket = objects_.find(kind.kind);
  if (bucket != objects_.end()) {
    out.reserve(bucket->second.size());
    for (const auto& [k, obj] : bucket->second) {
      out.push_back(obj);
    }
  }
  return out;
}

std::optional<std::vector<std::pair<std::string, std::shared_ptr<const Json>>>> Store::at_revision(
    const KindInfo& kind, uint64_t revision) const {
  if (revision < compacted_) {
    return std::nullopt;
  }
  std::map<std::string, std::shared_ptr<const Json>> state;
  auto bucket = objects_.find(kind.kind);
  if (bucket != objects_.end()) {
    state = bucket->second;
  }
  for (auto it = history_.rbegin(); it != history_.rend() && it->revision > revision; ++it) {
    if (it->kind != &kind) {
      continue;
    }
    if (it->type == EventType::added) {
      state.erase(it->key);
    } else {
      state[it->key] = it->previous;
    }
  }
  std::vector<std::pair<std::string, std::shared_ptr<const Json>>> out(state.begin(), state.end());
  return out;
}

std::shared_ptr<const Json> Store::put(const KindInfo& kind, Json object) {
  // Members first: adding one may move the object's others (an ordered
  // JSON object is a vector), so the metadata reference is taken after.
  if (!object.contains("kind")) {
    object["kind"] = std::string(kind.kind);
  }
  if (!object.contains("apiVersion")) {
    object["apiVersion"] = kind.api_version();
  }
  Json& meta = metadata(object);
  if (!kind.namespaced) {
    meta.erase("namespace");
  }
  if (meta_string(object, "uid").empty()) {
    meta["uid"] = random_uuid();
  }
  if (meta_string(object, "creationTimestamp").empty()) {
    meta["creationTimestamp"] = now_rfc3339();
  }
  meta["resourceVersion"] = std::to_string(++revision_);
  const std::string k = key(meta_string(object, "namespace"), meta_string(object, "name"));
  auto stored = std::make_shared<const Json>(std::move(object));
  auto& slot = objects_[std::string(kind.kind)][k];
  HistoryEntry entry{revision_, slot ? EventType::modified : EventType::added, &kind, k, stored,
                     slot};
  slot = stored;
  record(std::move(entry));
  return stored;
}

std::shared_ptr<const Json> Store::erase(const KindInfo& kind, std::string_view ns,
                                         std::string_view name) {
  auto bucket = objects_.find(kind.kind);
  if (bucket == objects_.end()) {
    return nullptr;
  }
  const std::string k = key(kind.namespaced ? ns : std::string_view(), name);
  auto it = bucket->second.find(k);
  if (it == bucket->second.end()) {
    return nullptr;
  }
  Json last = *it->second;
  metadata(last)["resourceVersion"] = std::to_string(++revision_);
  auto gone = std::make_shared<const Json>(std::move(last));
  HistoryEntry entry{revision_, EventType::deleted, &kind, k, gone, it->second};
  bucket->second.erase(it);
  record(std::move(entry));
  return gone;
}

void Store::compact() {
  history_.clear();
  compacted_ = revision_;
}

void Store::record(HistoryEntry entry) {
  history_.push_back(std::move(entry));
  while (history_.size() > history_limit_) {
    compacted_ = history_.front().revision;
    history_.pop_front();
  }
}

}  // namespace hami::testing::fake
