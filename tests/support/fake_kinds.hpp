// The resource kinds the fake API server serves and how request paths map
// onto them (core group under /api/v1, others under /apis/<group>/<version>).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hami::testing::fake {

struct KindInfo {
  std::string_view kind;       // "Pod"
  std::string_view list_kind;  // "PodList"
  std::string_view resource;   // "pods"
  std::string_view group;      // "" for core
  bool namespaced = true;

  // "v1" or "<group>/v1".
  std::string api_version() const;
  // "pods", "leases.coordination.k8s.io": how Status messages name it.
  std::string qualified_resource() const;
};

// By `kind` ("Pod", "Node", "Namespace", "ResourceQuota", "Event",
// "Lease", "Secret", "MutatingWebhookConfiguration"); null when not served.
const KindInfo* kind_by_name(std::string_view kind);

// A parsed request path.
struct Route {
  const KindInfo* kind = nullptr;
  std::string api_version;       // as addressed: "v1", "events.k8s.io/v1", ...
  std::string ns;                // empty: all namespaces / cluster-scoped
  std::string name;              // empty: the collection
  std::string subresource;       // "binding" for pods/{name}/binding
  bool legacy_bindings = false;  // POST /api/v1/namespaces/{ns}/bindings
};

// nullopt when the path names nothing this server serves.
std::optional<Route> parse_route(std::string_view path);

}  // namespace hami::testing::fake
