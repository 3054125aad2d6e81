/*
 * hami/admission.h — admission plugins (kind HAMI_KIND_ADMISSION): the
 * webhook's decision of which pods go to our scheduler.
 *
 * The host owns the wire: it decodes the AdmissionReview, handles anything
 * that is not a pod CREATE, builds the JSON Patch and encodes the reply. For
 * each pod CREATE it calls `review` on the configured admission plugin,
 * which decides step by step and uses host services for the parts that need
 * the device plugins or the cluster (defaults, quota, namespace labels).
 *
 * Threading: admission plugins must accept concurrent calls on one instance
 * (HAMI-PLUGIN-8).
 * Since: 1.0
 */
#ifndef HAMI_ADMISSION_H
#define HAMI_ADMISSION_H

#include "hami/objects.h"
#include "hami/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Purpose: services the host offers for one review. `ctx` is the first
 *   argument of every function. Valid only during the `review` call.
 * Threading: call only from the thread running `review`.
 * Since: 1.0
 */
typedef struct hami_admission_host {
  uint32_t struct_size;
  void* ctx;
  /* apply_device_defaults — Runs every device plugin over every container
   * (init containers first), records their mutations in the reply's patch
   * and sets *uses_managed to 1 when any container uses a managed vGPU
   * resource afterwards. Call at most once per review.
   * Returns: HAMI_OK; HAMI_INVALID_ARGUMENT with the device plugin's message
   * (the pod should then be denied with it). */
  hami_status (*apply_device_defaults)(void* ctx, uint32_t* uses_managed,
                                       hami_errbuf err);
  /* check_quota — Checks the pod's demand (after defaults) against the
   * namespace's ResourceQuotas.
   * Returns: HAMI_OK; HAMI_RESOURCE_EXHAUSTED with a message when a quota
   * would be exceeded; HAMI_UNAVAILABLE when quotas are not known yet. */
  hami_status (*check_quota)(void* ctx, hami_errbuf err);
  /* namespace_label — Writes the value of label `key` of the pod's
   * namespace into `value`.
   * Returns: HAMI_OK; HAMI_NOT_FOUND when the namespace or label is absent;
   * HAMI_UNAVAILABLE when the cluster state does not know namespaces. */
  hami_status (*namespace_label)(void* ctx, hami_str key, hami_sink value);
} hami_admission_host;

/*
 * Purpose: input of `review`.
 * Params:
 *   pod            — the pod being created (namespace filled from the
 *                    request when the object lacks it).
 *   scheduler_name — the host's configured scheduler name (a plugin may be
 *                    configured with its own).
 *   dry_run        — 1 for a dry-run request (no side effects either way).
 * Since: 1.0
 */
typedef struct hami_admission_input {
  uint32_t struct_size;
  const hami_pod_view* pod;
  hami_str scheduler_name;
  uint32_t dry_run;
  const hami_admission_host* host;
} hami_admission_input;

#define HAMI_ADMIT_ALLOW 0u /* allowed, with the recorded mutations        */
#define HAMI_ADMIT_DENY 1u  /* denied; `code` and `message` are sent        */
#define HAMI_ADMIT_SKIP 2u  /* allowed unchanged: mutations are discarded   */

/*
 * Purpose: output of `review`. The host zeroes it, sets struct_size and the
 *   sinks; the plugin fills the rest. // out
 *   verdict        — HAMI_ADMIT_*.
 *   code           — HTTP-style code sent with a denial (403 when 0).
 *   message        — the denial message, or an explanation for logs.
 *   scheduler_name — text written here becomes spec.schedulerName (nothing
 *                    written: unchanged). Ignored unless verdict is ALLOW.
 * Since: 1.0
 */
typedef struct hami_admission_output {
  uint32_t struct_size;
  uint32_t verdict;
  int32_t code;
  hami_sink message;
  hami_sink scheduler_name;
} hami_admission_output;

/*
 * Purpose: the admission plugin's functions. Begins with the members of
 *   hami_vtable_header.
 * Since: 1.0
 */
typedef struct hami_admission_vtable {
  uint32_t struct_size;
  hami_status (*create)(const hami_host_info* host, hami_str config_json,
                        hami_instance** out, hami_errbuf err);
  void (*destroy)(hami_instance* instance);

  /* review — Required. Decides on one pod CREATE.
   * Returns: HAMI_OK with `out` filled; any other code makes the host answer
   * an errored review (HTTP 500 in the status) naming the plugin and its
   * message. */
  hami_status (*review)(hami_instance* instance,
                        const hami_admission_input* in,
                        hami_admission_output* out, hami_errbuf err);
} hami_admission_vtable;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HAMI_ADMISSION_H */
