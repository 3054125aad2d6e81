#include "ops/known_namespaces.hpp"

namespace hami::ops {

std::set<std::string, std::less<>> known_namespaces(const cluster::ClusterState& cluster) {
  std::set<std::string, std::less<>> known;
  for (const cluster::NamespaceRecord& n : cluster.namespaces())
    known.insert(n.name);
  for (const auto& pod : cluster.pods())
    known.insert(pod->namespace_);
  for (const cluster::ResourceQuotaRecord& q : cluster.quotas())
    known.insert(q.namespace_);
  return known;
}

std::string missing_namespace_warning(std::string_view namespace_, size_t count) {
  const bool one = count == 1;
  return "namespace \"" + std::string(namespace_) +
         "\" does not exist in the cluster: Kubernetes would refuse " +
         (one ? std::string("the pod") : "the " + std::to_string(count) + " pods") + "; " +
         (one ? "it is" : "they are") + " scheduled as if the namespace existed";
}

}  // namespace hami::ops
