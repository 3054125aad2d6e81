/*
 * hami/scheduling.h — scheduling policy plugins (kind HAMI_KIND_SCHEDULING):
 * node scoring and device ordering (binpack, spread, numa, mutex,
 * topology-aware, …).
 *
 * The host knows no policy by name. Each plugin declares the policy names it
 * implements; the host picks, for a pod, the node policy and the device
 * policy from its config or the pod annotations
 * `hami.io/node-scheduler-policy` / `hami.io/gpu-scheduler-policy`, and
 * calls the plugin that declares the policy's first comma-separated word,
 * passing the whole policy text (so "binpack,numa" reaches the plugin
 * declaring "binpack").
 *
 * Threading: must accept concurrent calls on one instance (HAMI-PLUGIN-8).
 * Since: 1.0
 */
#ifndef HAMI_SCHEDULING_H
#define HAMI_SCHEDULING_H

#include "hami/device.h"
#include "hami/objects.h"
#include "hami/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Purpose: the policy names this instance implements, as comma lists.
 * The first name of each list is the plugin's default: when the host config
 * sets no node (device) policy, the host uses the first name listed by the
 * first plugin, in configuration order, that lists any.
 * Ownership / lifetime: owned by the instance until it is destroyed.
 * Since: 1.0
 */
typedef struct hami_policy_description {
  uint32_t struct_size;
  hami_str node_policies;   /* e.g. "binpack,spread"                       */
  hami_str device_policies; /* e.g. "spread,binpack,numa"                  */
} hami_policy_description;

/*
 * Purpose: a node's usage summed over all its managed devices, before the
 *   pod being scheduled is placed.
 * Since: 1.0
 */
typedef struct hami_node_usage {
  uint32_t struct_size;
  hami_str node_name;
  size_t devices;
  int64_t used;  /* tasks placed                                           */
  int64_t count; /* task slots                                             */
  int64_t used_cores;
  int64_t total_cores;
  int64_t used_memory_mib;
  int64_t total_memory_mib;
  /* Since 1.2 (HAMI-HOST-16): the sum of the pod's vendors' placement
   * terms on this node (device score_placement), in HAMi's units of the
   * default node score: `vendor_score` is added as the default score is
   * (a policy preferring low scores prefers it low), `vendor_neutral_score`
   * is preferred high under every policy. Both 0 without such vendors. */
  double vendor_score;
  double vendor_neutral_score;
} hami_node_usage;

/*
 * Purpose: one device to order.
 *   usage — the device and its current usage (device.h).
 *   score — the device score of HAMi §5.4 for this container, computed by
 *           the host with the pod's hami.io/device-scoring-weights.
 * Since: 1.0
 */
typedef struct hami_order_device {
  uint32_t struct_size;
  const hami_device_usage* usage;
  double score;
} hami_order_device;

/*
 * Purpose: input of order_devices.
 *   policy  — the full device-policy text chosen for the pod.
 *   pod     — the pod (its annotations, e.g. nvidia.com/numa-bind).
 *   devices — one vendor's devices on one node, in registration order.
 * Since: 1.0
 */
typedef struct hami_order_input {
  uint32_t struct_size;
  hami_str policy;
  const hami_pod_view* pod;
  const hami_order_device* devices;
  size_t devices_len;
} hami_order_input;

/*
 * Purpose: output of order_devices. The host provides `order` with
 *   `devices_len` entries. // out
 *   order       — a permutation of 0..devices_len-1: order[0] is the index
 *                 of the device to try first.
 *   fit_flags   — HAMI_FIT_* flags for the vendor's fit (mutex,
 *                 topology-aware).
 * Since: 1.0
 */
typedef struct hami_order_output {
  uint32_t struct_size;
  size_t* order;
  uint32_t fit_flags;
} hami_order_output;

/*
 * Purpose: the scheduling plugin's functions. Begins with the members of
 *   hami_vtable_header.
 * Since: 1.0
 */
typedef struct hami_scheduling_vtable {
  uint32_t struct_size;
  hami_status (*create)(const hami_host_info* host, hami_str config_json, hami_instance** out,
                        hami_errbuf err);
  void (*destroy)(hami_instance* instance);

  /* describe — Required. Names the policies this instance implements.
   * Returns: HAMI_OK. */
  hami_status (*describe)(hami_instance* instance, hami_policy_description* out, hami_errbuf err);

  /* score_node — Optional (required when node_policies is non-empty).
   * Scores a feasible node for the pod under `policy`; higher is preferred.
   * *score must be within [0, 100] when the node's vendor terms are 0, and
   * finite otherwise (1.2); the host maps it to the extender's 0..10
   * (clamped) and rejects values outside that.
   * Returns: HAMI_OK; HAMI_INVALID_ARGUMENT for a policy text it cannot
   * read. */
  hami_status (*score_node)(hami_instance* instance, hami_str policy, const hami_pod_view* pod,
                            const hami_node_usage* node, double* score, hami_errbuf err);

  /* order_devices — Optional (required when device_policies is non-empty).
   * Orders one vendor's devices for one container. The host checks that
   * `order` is a permutation.
   * Returns: HAMI_OK; HAMI_INVALID_ARGUMENT for a policy text it cannot
   * read. */
  hami_status (*order_devices)(hami_instance* instance, const hami_order_input* in,
                               hami_order_output* out, hami_errbuf err);
} hami_scheduling_vtable;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HAMI_SCHEDULING_H */
