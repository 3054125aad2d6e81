/*
 * hami/objects.h — read-only views of the Kubernetes objects plugins look at.
 *
 * The host parses pods and nodes once (from AdmissionReviews, extender
 * arguments or the cluster cache) and hands plugins these flat views, so no
 * plugin parses JSON on the scheduling path.
 *
 * Ownership / lifetime: every view and everything it points to is borrowed
 * from the host for the duration of the call it is passed to
 * (HAMI-PLUGIN-3). Arrays are never NULL when their length is non-zero.
 * Order of kv arrays is the order in the object; keys are unique.
 * Since: 1.0
 */
#ifndef HAMI_OBJECTS_H
#define HAMI_OBJECTS_H

#include "hami/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Purpose: one container of a pod.
 * Params:
 *   name        — container name.
 *   is_init     — 1 for spec.initContainers[], 0 for spec.containers[].
 *   privileged  — 1 when securityContext.privileged is true.
 *   limits      — resources.limits as name → quantity text ("1", "4Gi").
 *   requests    — resources.requests, same form.
 *   env         — env[] entries that carry a literal `value`
 *                 (valueFrom entries have an empty value).
 * Since: 1.0
 */
typedef struct hami_container_view {
  uint32_t struct_size;
  hami_str name;
  uint32_t is_init;
  uint32_t privileged;
  const hami_kv* limits;
  size_t limits_len;
  const hami_kv* requests;
  size_t requests_len;
  const hami_kv* env;
  size_t env_len;
} hami_container_view;

/*
 * Purpose: a pod.
 * Params:
 *   containers — init containers first (in spec order), then app
 *                containers; `init_count` of them are init containers.
 *                This is the order of allocation-annotation segments.
 *   runtime_class_name, scheduler_name, node_name — spec fields, empty
 *                when absent.
 * Since: 1.0
 */
typedef struct hami_pod_view {
  uint32_t struct_size;
  hami_str namespace_;
  hami_str name;
  hami_str uid;
  hami_str scheduler_name;
  hami_str node_name;
  hami_str runtime_class_name;
  const hami_kv* annotations;
  size_t annotations_len;
  const hami_kv* labels;
  size_t labels_len;
  const hami_container_view* containers;
  size_t containers_len;
  size_t init_count;
} hami_pod_view;

/*
 * Purpose: a node, as far as device plugins need it.
 * Params: `allocatable` and `capacity` are status.* as name → quantity.
 * Since: 1.0
 */
typedef struct hami_node_view {
  uint32_t struct_size;
  hami_str name;
  const hami_kv* annotations;
  size_t annotations_len;
  const hami_kv* labels;
  size_t labels_len;
  const hami_kv* allocatable;
  size_t allocatable_len;
  const hami_kv* capacity;
  size_t capacity_len;
} hami_node_view;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HAMI_OBJECTS_H */
