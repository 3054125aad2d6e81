#include "kube/write_bodies.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <ctime>

#include "k8s/json_path.hpp"

namespace hami::kube {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void key(Writer& w, std::string_view k) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}

void str(Writer& w, std::string_view v) {
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

void member(Writer& w, std::string_view k, std::string_view v) {
  key(w, k);
  str(w, v);
}

void writes(Writer& w, std::string_view k, const std::vector<cluster::MetadataWrite>& list) {
  key(w, k);
  w.StartObject();
  for (const cluster::MetadataWrite& m : list) {
    key(w, m.key);
    if (m.value) {
      str(w, *m.value);
    } else {
      w.Null();
    }
  }
  w.EndObject();
}

void operation(Writer& w, std::string_view op, std::string_view path,
               std::optional<std::string_view> value) {
  w.StartObject();
  member(w, "op", op);
  member(w, "path", path);
  if (value)
    member(w, "value", *value);
  w.EndObject();
}

// {"op":"test","path":<path>,"value":null}: the API server's patch
// library (evanphx/json-patch v4) passes it when the member is absent and
// fails it when it holds a value; the member's parent must exist.
void test_absent(Writer& w, std::string_view path) {
  w.StartObject();
  member(w, "op", "test");
  member(w, "path", path);
  key(w, "value");
  w.Null();
  w.EndObject();
}

std::string member_path(std::string_view map, std::string_view key) {
  std::string path = "/metadata/";
  path += map;
  k8s::append_pointer_token(path, key);
  return path;
}

std::string text(const rapidjson::StringBuffer& buffer) {
  return {buffer.GetString(), buffer.GetSize()};
}

// At most `limit` bytes, not splitting a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view s, size_t limit) {
  if (s.size() <= limit)
    return s;
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80)
    --end;
  return s.substr(0, end);
}

std::string utc(int64_t unix_nanos, bool micros) {
  const auto seconds = static_cast<std::time_t>(unix_nanos / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[48];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  if (micros) {
    n += static_cast<size_t>(std::snprintf(buf + n, sizeof buf - n, ".%06ld",
                                           static_cast<long>(unix_nanos % 1'000'000'000 / 1000)));
  }
  buf[n++] = 'Z';
  return std::string(buf, n);
}

std::string_view action_of(std::string_view reason) {
  size_t end = 1;
  while (end < reason.size() && !(reason[end] >= 'A' && reason[end] <= 'Z'))
    ++end;
  return reason.substr(0, std::min(end, reason.size()));
}

void object_reference(Writer& w, const cluster::Event& event, std::string_view resource_version) {
  w.StartObject();
  member(w, "apiVersion", "v1");
  member(w, "kind", event.kind);
  member(w, "name", event.name);
  if (!event.namespace_.empty())
    member(w, "namespace", event.namespace_);
  if (!event.uid.empty())
    member(w, "uid", event.uid);
  if (!resource_version.empty())
    member(w, "resourceVersion", resource_version);
  w.EndObject();
}

void event_metadata(Writer& w, const cluster::Event& event, const EventStamp& stamp) {
  key(w, "metadata");
  w.StartObject();
  member(w, "name", stamp.name);
  member(w, "namespace", event_namespace(event));
  w.EndObject();
}

}  // namespace

std::string pod_metadata_json_patch_body(const cluster::PodMetadataPatch& patch,
                                         std::string_view uid, const cluster::PodRecord* known) {
  const bool has_annotations =
      known == nullptr || (known->model && known->model->has_annotations());
  const bool has_labels = known == nullptr || (known->model && known->model->has_labels());
  const auto adds_whole = [](const std::vector<cluster::MetadataWrite>& writes, bool present) {
    if (present)
      return false;
    for (const auto& w : writes) {
      if (w.value)
        return true;
    }
    return false;
  };
  const bool whole_annotations = adds_whole(patch.annotations, has_annotations);
  const bool whole_labels = adds_whole(patch.labels, has_labels);

  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartArray();
  if (!uid.empty())
    operation(w, "test", "/metadata/uid", uid);
  if (patch.expect_resource_version)
    operation(w, "test", "/metadata/resourceVersion", *patch.expect_resource_version);
  if (patch.expect_unbound) {
    test_absent(w, "/spec/nodeName");
    test_absent(w, "/metadata/deletionTimestamp");
  }
  // A map `known` lacks must still be absent where the patch adds it whole
  // (the add would replace one the server has) or expects keys of it
  // absent (a test of a member needs its map): one test of the map.
  const auto test_map = [&](std::string_view map, bool present, bool whole,
                            const std::vector<std::string>& absent) {
    if (!present && (whole || !absent.empty()))
      test_absent(w, "/metadata/" + std::string(map));
  };
  test_map("annotations", has_annotations, whole_annotations, patch.expect_absent_annotations);
  test_map("labels", has_labels, whole_labels, patch.expect_absent_labels);
  for (const auto& [k, v] : patch.expect_annotations)
    operation(w, "test", member_path("annotations", k), v);
  for (const auto& [k, v] : patch.expect_labels)
    operation(w, "test", member_path("labels", k), v);
  const auto test_members = [&](std::string_view map, bool present,
                                const std::vector<std::string>& absent) {
    if (!present)
      return;
    for (const std::string& k : absent)
      test_absent(w, member_path(map, k));
  };
  test_members("annotations", has_annotations, patch.expect_absent_annotations);
  test_members("labels", has_labels, patch.expect_absent_labels);
  const auto emit = [&](std::string_view map, const std::vector<cluster::MetadataWrite>& writes,
                        bool whole, bool present) {
    if (whole) {
      w.StartObject();
      member(w, "op", "add");
      member(w, "path", "/metadata/" + std::string(map));
      key(w, "value");
      w.StartObject();
      for (const auto& m : writes) {
        if (m.value)
          member(w, m.key, *m.value);
      }
      w.EndObject();
      w.EndObject();
      return;
    }
    for (const auto& m : writes) {
      if (m.value) {
        operation(w, "add", member_path(map, m.key), *m.value);
        continue;
      }
      const bool listed =
          known == nullptr ||
          (map == "annotations" ? known->annotation(m.key) : known->label(m.key)).has_value();
      if (present && listed)
        operation(w, "remove", member_path(map, m.key), std::nullopt);
    }
  };
  emit("annotations", patch.annotations, whole_annotations, has_annotations);
  emit("labels", patch.labels, whole_labels, has_labels);
  w.EndArray();
  return text(buffer);
}

std::string pod_metadata_patch_body(const cluster::PodMetadataPatch& patch) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  key(w, "metadata");
  w.StartObject();
  if (!patch.annotations.empty())
    writes(w, "annotations", patch.annotations);
  if (!patch.labels.empty())
    writes(w, "labels", patch.labels);
  w.EndObject();
  w.EndObject();
  return text(buffer);
}

std::string node_annotations_patch_body(const std::vector<cluster::MetadataWrite>& annotations,
                                        std::optional<std::string_view> resource_version) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  key(w, "metadata");
  w.StartObject();
  if (resource_version)
    member(w, "resourceVersion", *resource_version);
  writes(w, "annotations", annotations);
  w.EndObject();
  w.EndObject();
  return text(buffer);
}

std::string binding_body(std::string_view namespace_, std::string_view name, std::string_view uid,
                         std::string_view node) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  member(w, "apiVersion", "v1");
  member(w, "kind", "Binding");
  key(w, "metadata");
  w.StartObject();
  member(w, "name", name);
  member(w, "namespace", namespace_);
  if (!uid.empty())
    member(w, "uid", uid);
  w.EndObject();
  key(w, "target");
  w.StartObject();
  member(w, "apiVersion", "v1");
  member(w, "kind", "Node");
  member(w, "name", node);
  w.EndObject();
  w.EndObject();
  return text(buffer);
}

std::string event_name(std::string_view object, int64_t unix_nanos) {
  char hex[24];
  const int n =
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(unix_nanos));
  std::string out(object);
  out += '.';
  out.append(hex, static_cast<size_t>(n));
  return out;
}

std::string event_namespace(const cluster::Event& event) {
  return event.namespace_.empty() ? std::string("default") : event.namespace_;
}

std::string events_v1_event_body(const cluster::Event& event, const EventStamp& stamp) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  member(w, "apiVersion", "events.k8s.io/v1");
  member(w, "kind", "Event");
  event_metadata(w, event, stamp);
  member(w, "eventTime", utc(stamp.unix_nanos, true));
  member(w, "reportingController", stamp.component);
  member(w, "reportingInstance", utf8_prefix(stamp.instance, 128));
  member(w, "action", utf8_prefix(action_of(event.reason), 128));
  member(w, "reason", utf8_prefix(event.reason, 128));
  key(w, "regarding");
  object_reference(w, event, {});
  member(w, "note", utf8_prefix(event.message, 1024));
  member(w, "type", event.type);
  w.EndObject();
  return text(buffer);
}

std::string core_v1_event_body(const cluster::Event& event, const EventStamp& stamp) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  const std::string when = utc(stamp.unix_nanos, false);
  w.StartObject();
  member(w, "apiVersion", "v1");
  member(w, "kind", "Event");
  event_metadata(w, event, stamp);
  key(w, "involvedObject");
  object_reference(w, event, stamp.resource_version);
  member(w, "reason", event.reason);
  member(w, "message", event.message);
  member(w, "type", event.type);
  key(w, "source");
  w.StartObject();
  member(w, "component", stamp.component);
  w.EndObject();
  member(w, "firstTimestamp", when);
  member(w, "lastTimestamp", when);
  key(w, "count");
  w.Int(1);
  member(w, "reportingComponent", stamp.component);
  member(w, "reportingInstance", stamp.instance);
  w.EndObject();
  return text(buffer);
}

}  // namespace hami::kube
