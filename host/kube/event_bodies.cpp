#include "kube/event_bodies.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <stdexcept>

#include "cluster/node_lock.hpp"
#include "kube/leader_lease.hpp"

namespace hami::kube {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void member(Writer& w, std::string_view k, std::string_view v) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

void series(Writer& w, int32_t count, EventTime last_observed) {
  w.Key("series");
  w.StartObject();
  w.Key("count");
  w.Int(count);
  member(w, "lastObservedTime", micro_time(last_observed));
  w.EndObject();
}

// metav1.Time: whole seconds.
std::string seconds_text(EventTime t) {
  return cluster::format_rfc3339(
      std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count());
}

rapidjson::Document parse_object(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject())
    throw std::invalid_argument("event body is not a JSON object");
  return doc;
}

std::string text(const rapidjson::Document& doc) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  doc.Accept(w);
  return {buffer.GetString(), buffer.GetSize()};
}

void set_member(rapidjson::Document& doc, const char* name, rapidjson::Value value) {
  auto& a = doc.GetAllocator();
  if (const auto it = doc.FindMember(name); it != doc.MemberEnd())
    it->value = std::move(value);
  else
    doc.AddMember(rapidjson::StringRef(name), std::move(value), a);
}

}  // namespace

std::string event_series_patch_body(int32_t count, EventTime last_observed) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  series(w, count, last_observed);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string with_event_series(std::string_view create_body, int32_t count,
                              EventTime last_observed) {
  rapidjson::Document doc = parse_object(create_body);
  rapidjson::Value value(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  value.AddMember("count", count, a);
  const std::string when = micro_time(last_observed);
  value.AddMember("lastObservedTime", rapidjson::Value(when.c_str(), a), a);
  set_member(doc, "series", std::move(value));
  return text(doc);
}

std::string core_event_count_patch_body(int32_t count, EventTime last_timestamp,
                                        std::string_view message) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("count");
  w.Int(count);
  member(w, "lastTimestamp", seconds_text(last_timestamp));
  member(w, "message", message);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string with_event_count(std::string_view create_body, int32_t count,
                             EventTime first_timestamp) {
  rapidjson::Document doc = parse_object(create_body);
  auto& a = doc.GetAllocator();
  set_member(doc, "count", rapidjson::Value(count));
  const std::string first = seconds_text(first_timestamp);
  set_member(doc, "firstTimestamp", rapidjson::Value(first.c_str(), a));
  return text(doc);
}

}  // namespace hami::kube
