// The coordination.k8s.io/v1 Lease as leader election reads and writes it
// (kubernetes.md §4.7): the record fields, MicroTime text, the request
// bodies and paths, and how a holder identity is matched.
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <string>
#include <string_view>

namespace hami::kube {

struct LeaseRecord {
  std::string holder;        // spec.holderIdentity ("" when absent)
  int duration_seconds = 0;  // spec.leaseDurationSeconds
  std::string acquire_time;  // spec.acquireTime as written
  std::string renew_time;    // spec.renewTime as written
  int transitions = 0;       // spec.leaseTransitions

  bool operator==(const LeaseRecord&) const = default;
};

// The record of a Lease object; absent or mistyped fields keep their defaults.
LeaseRecord lease_record(const rapidjson::Value& lease);
// metadata.resourceVersion ("" when absent).
std::string lease_resource_version(const rapidjson::Value& lease);

// MicroTime: RFC 3339 UTC with exactly six fractional digits,
// "2026-07-20T09:41:12.345678Z".
std::string micro_time(std::chrono::system_clock::time_point t);

// "/apis/coordination.k8s.io/v1/namespaces/<ns>/leases".
std::string leases_path(std::string_view namespace_);

// A Lease object body for POST (resource_version empty) or PUT.
std::string lease_body(std::string_view namespace_, std::string_view name,
                       const LeaseRecord& record, std::string_view resource_version);

// kube-scheduler writes "<hostname>_<uuid>"; HAMi matches the host name as
// a prefix. Here the holder must be the identity itself or start with
// "<identity>_", so "node-a" is not taken for the holder "node-ab_…".
bool holder_matches(std::string_view holder, std::string_view identity);

}  // namespace hami::kube
