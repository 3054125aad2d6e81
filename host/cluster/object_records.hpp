// Builders that turn Kubernetes objects (parsed JSON) into the records the
// ClusterState interface hands out. Both backends (the `file` snapshot and
// the Kubernetes caches) use these, so a pod or node reads the same
// whichever backend it came from.
//
// Each builder reads only what its record holds and throws
// k8s::ObjectError (pointer + problem) when a member it reads has the wrong
// type. Members it does not read are not looked at, which is what lets the
// Kubernetes caches store trimmed objects (kube/object_trim.hpp keeps
// exactly the members read here and by the models).
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <memory>
#include <string_view>

#include "cluster/cluster_state.hpp"
#include "k8s/node.hpp"

namespace hami::cluster {

// NodeModel of a Node object (metadata name/uid/resourceVersion/annotations/
// labels, status allocatable/capacity).
std::shared_ptr<const k8s::NodeModel> make_node_model(const rapidjson::Value& node);

// PodRecord of a Pod object: the PodModel plus namespace, name, uid,
// spec.nodeName, metadata.resourceVersion, status.phase, terminating
// (metadata.deletionTimestamp) and init_containers_succeeded.
std::shared_ptr<const PodRecord> make_pod_record(const rapidjson::Value& pod);

// ResourceQuotaRecord of a ResourceQuota (metadata.namespace, defaulting to
// `default_namespace`, metadata.name, spec.hard).
ResourceQuotaRecord make_quota_record(const rapidjson::Value& quota,
                                      std::string_view default_namespace = "default");

// NamespaceRecord of a Namespace (metadata.name, metadata.labels).
NamespaceRecord make_namespace_record(const rapidjson::Value& namespace_object);

// Every one of the pod's `init_count` init containers has a status whose
// state.terminated.exitCode is 0. False when init_count is 0.
bool init_containers_succeeded(const rapidjson::Value& pod, size_t init_count);

// A JSON map of strings (integers accepted as their decimal text; other
// values skipped) as key/value pairs in object order. Null/absent → empty.
KeyValues string_pairs(const rapidjson::Value* map);

}  // namespace hami::cluster
