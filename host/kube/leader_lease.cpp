#include "kube/leader_lease.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <ctime>

#include "k8s/json_read.hpp"

namespace hami::kube {

namespace {

int int_member(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject())
    return 0;
  const auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsInt())
    return 0;
  return it->value.GetInt();
}

}  // namespace

LeaseRecord lease_record(const rapidjson::Value& lease) {
  LeaseRecord r;
  if (!lease.IsObject())
    return r;
  const auto spec = lease.FindMember("spec");
  if (spec == lease.MemberEnd() || !spec->value.IsObject())
    return r;
  r.holder = k8s::json::string_or_empty(spec->value, "holderIdentity");
  r.duration_seconds = int_member(spec->value, "leaseDurationSeconds");
  r.acquire_time = k8s::json::string_or_empty(spec->value, "acquireTime");
  r.renew_time = k8s::json::string_or_empty(spec->value, "renewTime");
  r.transitions = int_member(spec->value, "leaseTransitions");
  return r;
}

std::string lease_resource_version(const rapidjson::Value& lease) {
  if (!lease.IsObject())
    return {};
  const auto meta = lease.FindMember("metadata");
  if (meta == lease.MemberEnd())
    return {};
  return k8s::json::string_or_empty(meta->value, "resourceVersion");
}

std::string micro_time(std::chrono::system_clock::time_point t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  auto seconds = static_cast<std::time_t>(micros / 1'000'000);
  auto fraction = micros % 1'000'000;
  if (fraction < 0) {
    fraction += 1'000'000;
    --seconds;
  }
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[40];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[64];
  std::snprintf(out, sizeof out, "%.*s.%06lldZ", static_cast<int>(n), buf,
                static_cast<long long>(fraction));
  return out;
}

std::string leases_path(std::string_view namespace_) {
  return "/apis/coordination.k8s.io/v1/namespaces/" + std::string(namespace_) + "/leases";
}

std::string lease_body(std::string_view namespace_, std::string_view name,
                       const LeaseRecord& record, std::string_view resource_version) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const auto str = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("apiVersion");
  str("coordination.k8s.io/v1");
  w.Key("kind");
  str("Lease");
  w.Key("metadata");
  w.StartObject();
  w.Key("name");
  str(name);
  w.Key("namespace");
  str(namespace_);
  if (!resource_version.empty()) {
    w.Key("resourceVersion");
    str(resource_version);
  }
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  w.Key("holderIdentity");
  str(record.holder);
  w.Key("leaseDurationSeconds");
  w.Int(record.duration_seconds);
  if (!record.acquire_time.empty()) {
    w.Key("acquireTime");
    str(record.acquire_time);
  }
  if (!record.renew_time.empty()) {
    w.Key("renewTime");
    str(record.renew_time);
  }
  w.Key("leaseTransitions");
  w.Int(record.transitions);
  w.EndObject();
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

bool holder_matches(std::string_view holder, std::string_view identity) {
  if (identity.empty() || holder.size() < identity.size())
    return false;
  if (holder.substr(0, identity.size()) != identity)
    return false;
  return holder.size() == identity.size() || holder[identity.size()] == '_';
}

}  // namespace hami::kube
