// Anonymizing a cluster snapshot (`hami-scheduler snapshot --anonymize`):
// names are replaced consistently, so the copy schedules exactly as the
// original, while device facts (ids, types, memory, vendor annotations) are
// kept — they carry no names.
//
// First every object is cut down to what the scheduler reads, as the
// Kubernetes backend caches it (kube/object_trim.hpp), with apiVersion v1
// and its kind; objects of other kinds are dropped. A file snapshot may hold
// whole objects: container images, commands, env and the like are gone.
// docs/simulate.md lists every kept field.
//
// New names are numbered from 1 in the sorted order of the originals:
//   namespaces  ns-<i>     (every namespace any object names)
//   nodes       node-<i>   (Node objects, pod spec.nodeName, node locks)
//   pods        pod-<i>    (by namespace/name)
//   quotas      quota-<i>  (ResourceQuota names)
//   pod groups  group-<i>  (spec.schedulingGroup.podGroupName and the
//                           label scheduling.x-k8s.io/pod-group)
//   containers  c<j>       (the j-th container of its pod, init first)
// Renamed where they appear: metadata.name and metadata.namespace of every
// object; pod spec.nodeName; the node lock hami.io/mutex.lock
// "<time>,<namespace>,<pod>"; and every label or annotation value that is
// exactly an original namespace, node or pod-group name (hami.io/vgpu-node
// annotation and label, kubernetes.io/hostname, kubernetes.io/metadata.name).
// Removed: metadata.uid (the file backend derives one from the new name),
// and any label or annotation whose key or value still holds an original
// name as a whole word (a run of letters, digits, '-', '_', '.'), e.g.
// `app: payroll-7` on pod payroll-7. Kept as they are: device ids and
// every other label and annotation, resources, phases, resourceVersions.
// (metadata.uid is kept by the cut and then removed.)
#pragma once

#include <rapidjson/document.h>

namespace hami::ops {

// `items`: the snapshot's objects (each with `kind`), rewritten in place.
void anonymize_snapshot(rapidjson::Value& items, rapidjson::Document::AllocatorType& a);

}  // namespace hami::ops
