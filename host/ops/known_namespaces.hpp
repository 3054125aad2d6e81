// Whether the namespaces operator commands place pods into exist in the
// cluster copy they run on. Kubernetes refuses a pod in a namespace that
// does not exist; explain and simulate still place it, and say so.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "cluster/cluster_state.hpp"

namespace hami::ops {

// The namespaces the cluster knows: its Namespace objects, and those its
// pods and quotas are in (a snapshot without Namespace objects still knows
// where its pods run).
std::set<std::string, std::less<>> known_namespaces(const cluster::ClusterState& cluster);

// The warning for `count` pods placed in `namespace_`, which the cluster
// does not have: `namespace "x" does not exist in the cluster: Kubernetes
// would refuse the pod; it is scheduled as if the namespace existed` ("the 3
// pods"/"them" for several).
std::string missing_namespace_warning(std::string_view namespace_, size_t count);

}  // namespace hami::ops
