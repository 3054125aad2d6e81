#include "fake_kinds.hpp"

#include <array>
#include <vector>

namespace hami::testing::fake {
namespace {

constexpr std::array<KindInfo, 9> kKinds{{
    {"Pod", "PodList", "pods", "", true},
    {"Node", "NodeList", "nodes", "", false},
    {"Namespace", "NamespaceList", "namespaces", "", false},
    {"ResourceQuota", "ResourceQuotaList", "resourcequotas", "", true},
    {"Event", "EventList", "events", "", true},
    {"Lease", "LeaseList", "leases", "coordination.k8s.io", true},
    {"Secret", "SecretList", "secrets", "", true},
    {"ConfigMap", "ConfigMapList", "configmaps", "", true},
    {"MutatingWebhookConfiguration", "MutatingWebhookConfigurationList",
     "mutatingwebhookconfigurations", "admissionregistration.k8s.io", false},
}};

// Events are one store reached through two groups, as on the real server.
const KindInfo* kind_by_resource(std::string_view group, std::string_view resource) {
  for (const KindInfo& k : kKinds) {
    if (k.resource != resource) {
      continue;
    }
    if (k.group == group || (k.kind == "Event" && group == "events.k8s.io")) {
      return &k;
    }
  }
  return nullptr;
}

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) {
      slash = path.size();
    }
    if (slash > pos) {
      out.push_back(path.substr(pos, slash - pos));
    }
    pos = slash + 1;
  }
  return out;
}

}  // namespace

std::string KindInfo::api_version() const {
  return group.empty() ? std::string("v1") : std::string(group) + "/v1";
}

std::string KindInfo::qualified_resource() const {
  return group.empty() ? std::string(resource) : std::string(resource) + "." + std::string(group);
}

const KindInfo* kind_by_name(std::string_view kind) {
  for (const KindInfo& k : kKinds) {
    if (k.kind == kind) {
      return &k;
    }
  }
  return nullptr;
}

std::optional<Route> parse_route(std::string_view path) {
  const std::vector<std::string_view> seg = split_path(path);
  std::string_view group;
  size_t rest = 0;
  if (seg.size() >= 2 && seg[0] == "api" && seg[1] == "v1") {
    rest = 2;
  } else if (seg.size() >= 3 && seg[0] == "apis" && seg[2] == "v1") {
    group = seg[1];
    rest = 3;
  } else {
    return std::nullopt;
  }
  Route route;
  route.api_version = group.empty() ? std::string("v1") : std::string(group) + "/v1";
  const size_t n = seg.size() - rest;
  auto at = [&](size_t i) { return seg[rest + i]; };
  if (n >= 3 && at(0) == "namespaces") {
    route.ns = std::string(at(1));
    if (group.empty() && at(2) == "bindings" && n == 3) {
      route.kind = kind_by_name("Pod");
      route.legacy_bindings = true;
      return route;
    }
    route.kind = kind_by_resource(group, at(2));
    if (route.kind == nullptr || !route.kind->namespaced || n > 5) {
      return std::nullopt;
    }
    if (n >= 4) {
      route.name = std::string(at(3));
    }
    if (n == 5) {
      route.subresource = std::string(at(4));
    }
  } else if (n >= 1 && n <= 3) {
    route.kind = kind_by_resource(group, at(0));
    if (route.kind == nullptr) {
      return std::nullopt;
    }
    if (n >= 2) {
      // A namespaced kind is only listed across namespaces here.
      if (route.kind->namespaced) {
        return std::nullopt;
      }
      route.name = std::string(at(1));
    }
    if (n == 3) {
      route.subresource = std::string(at(2));
    }
  } else {
    return std::nullopt;
  }
  // pods/{name}/binding is the only subresource served.
  if (!route.subresource.empty() &&
      !(route.kind->kind == "Pod" && route.subresource == "binding")) {
    return std::nullopt;
  }
  return route;
}

}  // namespace hami::testing::fake
