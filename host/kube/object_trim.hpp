// Trimmed copies of API objects: only the members the host's models and
// records read (k8s/pod.hpp, k8s/node.hpp, cluster/object_records.hpp), so
// the caches of a large cluster do not keep full pod specs (env, volumes,
// managedFields, status.conditions, …) in memory.
//
// Kept:
//   Pod:   metadata name, namespace, uid, resourceVersion,
//          deletionTimestamp, annotations, labels; spec schedulerName,
//          nodeName, runtimeClassName; of each init/app container: name,
//          restartPolicy, securityContext.privileged, resources.limits,
//          resources.requests; status phase and each
//          initContainerStatuses[].state.terminated.exitCode.
//          Container env is dropped: only admission reads it, and admission
//          works on the pod in the AdmissionReview, never the cache.
//   Node:  metadata name, uid, resourceVersion, annotations, labels;
//          status allocatable, capacity.
//   ResourceQuota: metadata name, namespace, resourceVersion; spec.hard.
//   Namespace: metadata name, resourceVersion, labels.
// Copies go into a caller's allocator so a list of thousands of objects
// shares one pool instead of one 64 KiB RapidJSON pool per object.
// A kept member whose type is unexpected is copied verbatim, so the model
// built from the trimmed copy rejects it exactly as it would the original.
#pragma once

#include <rapidjson/document.h>

namespace hami::kube {

using JsonAllocator = rapidjson::Document::AllocatorType;

// Each returns the trimmed copy allocated from `a` (a non-object input is
// copied whole).
rapidjson::Value trim_pod(const rapidjson::Value& pod, JsonAllocator& a);
rapidjson::Value trim_node(const rapidjson::Value& node, JsonAllocator& a);
rapidjson::Value trim_quota(const rapidjson::Value& quota, JsonAllocator& a);
rapidjson::Value trim_namespace(const rapidjson::Value& namespace_object, JsonAllocator& a);

}  // namespace hami::kube
