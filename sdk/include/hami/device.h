/*
 * hami/device.h — device plugins (kind HAMI_KIND_DEVICE): one vendor's
 * scheduler-side rules, e.g. nvidia.so and amd.so.
 *
 * A device plugin knows its vendor's resource names, the defaults the
 * admission webhook adds, how the node-side device plugin registers GPUs in
 * node annotations, how container resources become a request, how a request
 * fits onto a node's GPUs (check order and reason strings), and the grammar
 * of the allocation annotations. The host owns all state (inventories,
 * usage, reservations) and passes it in; the plugin decides.
 *
 * Threading: calls on one instance are serialised by the host unless the
 * plugin sets HAMI_FLAG_CONCURRENT_SAFE (HAMI-HOST-8).
 * Since: 1.0; members marked "Since 1.1" / "Since 1.2" were appended in
 * those minors.
 */
#ifndef HAMI_DEVICE_H
#define HAMI_DEVICE_H

#include "hami/objects.h"
#include "hami/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Data                                                                     */
/* ------------------------------------------------------------------------ */

/*
 * Purpose: static facts about the vendor, as configured.
 * Ownership / lifetime: strings are owned by the instance and stay valid
 *   until it is destroyed. Empty means "not used by this vendor".
 * Since: 1.0
 */
typedef struct hami_device_description {
  uint32_t struct_size;
  /* The vendor word: matched case-insensitively as a substring of device
   * types (HAMi's "common word"), e.g. "NVIDIA", "AMD". */
  hami_str vendor;
  hami_str count_resource;          /* nvidia.com/gpu                        */
  hami_str memory_resource;         /* nvidia.com/gpumem (MiB)               */
  hami_str memory_percent_resource; /* nvidia.com/gpumem-percentage          */
  hami_str cores_resource;          /* nvidia.com/gpucores (percent)         */
  hami_str priority_resource;       /* nvidia.com/priority                   */
  hami_str register_annotation;     /* hami.io/node-nvidia-register (node)   */
  hami_str handshake_annotation;    /* hami.io/node-handshake (node)         */
  hami_str to_allocate_annotation;  /* hami.io/vgpu-devices-to-allocate      */
  hami_str allocated_annotation;    /* hami.io/vgpu-devices-allocated        */
  /* Memory multiplier applied to requests; quota limits scale by it. >= 1. */
  int32_t memory_factor;

  /* Since 1.1 (HAMI_HAS_MEMBER before reading; absent = the 1.0 values). */
  /* How `cores` of devices, requests and picks count: HAMI_CORES_*.       */
  uint32_t cores_unit;
  uint32_t vendor_flags; /* HAMI_VENDOR_*                                  */
  /* Further pod annotations annotate_allocation writes. The host removes
   * them with the allocation and re-reads a pod when one of them changes
   * (HAMI-HOST-11). */
  const hami_str* allocation_annotations;
  size_t allocation_annotations_len;
  /* Info metrics describe_partitions feeds, one family per entry. */
  const struct hami_metric_family* partition_metrics;
  size_t partition_metrics_len;
  /* Whether bind takes the shared node lock for this vendor's pods:
   * HAMI_NODE_LOCK_* (HAMI-HOST-13). */
  uint32_t node_lock;

  /* Since 1.2 (HAMI-HOST-15). With node_lock HAMI_NODE_LOCK_OWN: the node
   * annotation of the vendor's own lock, whose value is the RFC 3339 time
   * it was taken (no owner), and after how many seconds a lock is stale
   * and may be taken over. Ignored for the other node_lock values. */
  hami_str own_lock_annotation;
  int64_t own_lock_expiry_seconds;
} hami_device_description;

/* hami_device_description.cores_unit (since 1.1). */
#define HAMI_CORES_PERCENT 0u /* percent of one device; 100 = all of it     */
#define HAMI_CORES_COUNT                        \
  1u /* compute units; hami_device.cores is the \
        device's total (AMD: CUs)                  */

/* hami_device_description.node_lock (since 1.1). Other values are
 * reserved; the host refuses a description that uses them. */
#define HAMI_NODE_LOCK_SHARED                     \
  0u /* hami.io/mutex.lock, released by the node- \
        side plugin (1.0 behaviour)              */
#define HAMI_NODE_LOCK_NONE                   \
  1u /* the node-side plugin never releases a \
        lock: bind takes none for this vendor    */
#define HAMI_NODE_LOCK_OWN                      \
  2u /* (1.2) bind takes the vendor's own lock, \
        own_lock_annotation (HAMI-HOST-15)       */

/* hami_device_description.vendor_flags (since 1.1). */
/* fit may pick one device more than once for a container (partitions of
 * one GPU). The host then accepts repeated device indexes in the picks, does
 * not fail a node with NodeInsufficientDevice because the vendor has fewer
 * devices than the request counts, and leaves that check to fit, which
 * reports exactly that reason text when it applies (HAMI-HOST-10). */
#define HAMI_VENDOR_MULTI_PICK 0x1u
/* (1.2) fit reads the pod's earlier placements of this vendor
 * (hami_fit_input.placed): the host records and passes them (HAMI-HOST-17).
 * Without it `placed` is NULL. */
#define HAMI_VENDOR_READS_PLACED 0x2u

/*
 * Purpose: an info metric (value 1 per series) the host exports for the
 *   partitions describe_partitions reports. The host puts its device labels
 *   first — node, device_uuid, device_index; in the legacy form nodeid,
 *   deviceuuid, deviceidx — and then `labels`, whose values each partition
 *   supplies in this order.
 *   legacy — 1: emitted only with HAMi's legacy metric names turned on.
 * Ownership / lifetime: as the description's strings. An array element: no
 *   struct_size, fixed for ABI 1.
 * Since: 1.1
 */
typedef struct hami_metric_family {
  hami_str name;
  hami_str help;
  const hami_str* labels;
  size_t labels_len;
  uint32_t legacy;
} hami_metric_family;

#define HAMI_DEVICE_HEALTHY 0x1u  /* the node-side plugin reports it healthy */
#define HAMI_DEVICE_CORDONED 0x2u /* listed in hami.io/device-cordon         */

/*
 * Purpose: one physical device as registered on a node.
 * Params: `memory_mib` total memory; `cores` total compute units as the
 *   vendor counts them (NVIDIA: percent × scaling, AMD: CU count); `count`
 *   maximum concurrent tasks (split count).
 * Ownership / lifetime: from decode_node, borrowed for the sink call only
 *   (the host copies); in fit input, borrowed for the fit call.
 * Since: 1.0
 */
typedef struct hami_device {
  uint32_t struct_size;
  hami_str id;   /* UUID                                                   */
  hami_str type; /* model, e.g. "NVIDIA A100-SXM4-40GB"                    */
  hami_str mode; /* "hami-core", "mig", "mps"; empty = hami-core           */
  uint32_t index;
  int32_t count;
  int64_t memory_mib;
  int32_t cores;
  int32_t numa;
  uint32_t flags; /* HAMI_DEVICE_*                                          */
  /* Since 1.1: vendor data of the registration the plugin needs later
   * (e.g. partition profiles), in a form of its choosing. The host copies
   * it with the device and hands it back in fit input; it never reads it. */
  hami_str attributes;
} hami_device;

/*
 * Purpose: receives a node's decoded inventory. `device` is called once per
 * device in registration order; `pair_score` once per directed pair from the
 * vendor's topology annotation (may never be called).
 * Since: 1.0
 */
typedef struct hami_device_sink {
  uint32_t struct_size;
  void* ctx;
  void (*device)(void* ctx, const hami_device* device);
  void (*pair_score)(void* ctx, hami_str from_id, hami_str to_id, int32_t score);
} hami_device_sink;

/*
 * Purpose: changes the plugin asks the host to make to an object's
 * annotations (node handshake, cleanup). The host performs the writes.
 * Since: 1.0
 */
typedef struct hami_annotation_sink {
  uint32_t struct_size;
  void* ctx;
  void (*set)(void* ctx, hami_str key, hami_str value);
  void (*remove)(void* ctx, hami_str key);
} hami_annotation_sink;

/*
 * Purpose: what the admission webhook should change in one container (and
 * its pod). The host turns each call into JSON Patch operations against the
 * request's own JSON; plugins never write patch text.
 *   set_limit          — resources.limits[resource] = quantity.
 *   add_env            — append {name, value} to the container's env.
 *   set_runtime_class  — spec.runtimeClassName = name, applied by the host
 *                        only when the pod has none.
 *   set_request        — (1.1) resources.requests[resource] = quantity.
 *   set_pod_annotation — (1.1) metadata.annotations[key] = value on the pod.
 * A 1.1 member is there when HAMI_HAS_MEMBER says so and it is not NULL
 * (HAMI-HOST-14).
 * Since: 1.0
 */
typedef struct hami_container_mutation_sink {
  uint32_t struct_size;
  void* ctx;
  void (*set_limit)(void* ctx, hami_str resource, hami_str quantity);
  void (*add_env)(void* ctx, hami_str name, hami_str value);
  void (*set_runtime_class)(void* ctx, hami_str name);
  /* Since 1.1. */
  void (*set_request)(void* ctx, hami_str resource, hami_str quantity);
  void (*set_pod_annotation)(void* ctx, hami_str key, hami_str value);
} hami_container_mutation_sink;

/*
 * Purpose: one container's demand on this vendor.
 * Params:
 *   count          — number of physical devices; 0 = no request.
 *   memory_mib     — per device, after memory_factor; 0 = see percent.
 *   memory_percent — per device, 1..100 of the device's memory; 0 = unset.
 *   cores          — per device, percent (NVIDIA) or percent of CUs (AMD).
 *   mode           — (1.2) how the vendor reads the other members, its
 *                    own values; 0 = as above. The host passes it to fit
 *                    unchanged and still counts memory_mib × count for
 *                    quota (e.g. HAMi's Enflame DRS: a slice count in
 *                    memory_mib in "direct" mode, HAMi-HOST-17).
 * Since: 1.0
 */
typedef struct hami_device_request {
  uint32_t struct_size;
  int32_t count;
  int64_t memory_mib;
  int32_t memory_percent;
  int32_t cores;
  /* Since 1.2. */
  int32_t mode;
} hami_device_request;

/*
 * Purpose: a device and what is already allocated on it, as the host's
 * usage ledger sees it at the time of the call.
 * Since: 1.0
 */
typedef struct hami_device_usage {
  uint32_t struct_size;
  const hami_device* device;
  int32_t used; /* tasks placed                                  */
  int64_t used_memory_mib;
  int32_t used_cores;
} hami_device_usage;

/* A directed topology score between two devices of the node (higher means
 * better connected). Borrowed for the call. */
typedef struct hami_pair_score {
  hami_str from_id;
  hami_str to_id;
  int32_t score;
} hami_pair_score;

/*
 * Purpose: lets fit ask whether the pod's namespace quota admits more.
 *   allows(ctx, memory_mib, cores) — the total memory and cores picked so
 *   far for this container, the candidate device included; the host adds
 *   the rest of the pod and the namespace's usage. Returns 1 when it fits.
 * Since: 1.0
 */
typedef struct hami_quota_hook {
  uint32_t struct_size;
  void* ctx;
  uint32_t (*allows)(void* ctx, int64_t memory_mib, int64_t cores);
} hami_quota_hook;

/* Policy switches the host passes to fit (set by the scheduling policy). */
#define HAMI_FIT_MUTEX 0x1u /* only idle devices                 */
#define HAMI_FIT_TOPOLOGY_AWARE          \
  0x2u /* choose among all candidates by \
          pair scores                      */

/*
 * Purpose: what is held on one device, one entry per hold: the `data` of
 *   a pick (set_pick_data, or reported by decode_pod_allocation) — of other
 *   pods and of this pod's earlier containers — or an empty string for a
 *   pod on the device whose allocation recorded no data for it. Order is
 *   unspecified. Borrowed for the call. An array element: fixed for ABI 1.
 * Since: 1.1
 */
typedef struct hami_holds {
  const hami_str* items;
  size_t len;
} hami_holds;

/*
 * Purpose: input of fit.
 * Params:
 *   pod, container_index — the pod (its annotations carry type/UUID
 *                          selectors) and which container is placed.
 *   request              — this container's request for this vendor.
 *   devices              — this vendor's devices on the node, in the order
 *                          the scheduling policy wants them TRIED: index 0
 *                          first. Usage includes earlier containers of the
 *                          same pod.
 *   pair_scores          — the node's topology scores (may be empty).
 *   policy_flags         — HAMI_FIT_*.
 *   quota                — NULL when quota is not enforced.
 * Since: 1.0
 */
typedef struct hami_fit_input {
  uint32_t struct_size;
  const hami_pod_view* pod;
  size_t container_index;
  const hami_device_request* request;
  const hami_device_usage* devices;
  size_t devices_len;
  const hami_pair_score* pair_scores;
  size_t pair_scores_len;
  uint32_t policy_flags;
  const hami_quota_hook* quota;
  /* Since 1.1: NULL, or devices_len entries aligned with `devices`: what
   * is held on each device (HAMI-HOST-12). */
  const struct hami_holds* device_holds;
  /* Since 1.2, for vendors with HAMI_VENDOR_READS_PLACED (else NULL, 0):
   * this vendor's picks for the pod's earlier containers of the same phase
   * — earlier init containers for an init container, earlier app
   * containers for an app container — one entry per such container in
   * container order, empty entries included; each device with its
   * registered index and pick data (HAMI-HOST-17). */
  const struct hami_placed_container* placed;
  size_t placed_len;
} hami_fit_input;

/*
 * Purpose: one device chosen by fit.
 *   device     — index into hami_fit_input.devices.
 *   type       — the type written in the allocation annotation (NVIDIA:
 *                "NVIDIA"; AMD: the device's type). Points into plugin
 *                static storage or into the input; the host copies it.
 *   memory_mib, cores — what this container takes from the device.
 * Since: 1.0
 */
typedef struct hami_fit_pick {
  size_t device;
  hami_str type;
  int64_t memory_mib;
  int32_t cores;
} hami_fit_pick;

/*
 * Purpose: output of fit. The host sets `picks`/`picks_cap` (at least
 * request->count entries) and `reason`; the plugin fills the rest. // out
 *   fits       — 1 when `picks_len == request->count` devices were chosen.
 *   reason     — when it does not fit: HAMi's text, "<n>/<m> <Reason>"
 *                entries sorted as strings and joined with ", ", e.g.
 *                "1/4 CardInsufficientCore, 3/4 CardInsufficientMemory".
 * Since: 1.0
 */
typedef struct hami_fit_output {
  uint32_t struct_size;
  hami_fit_pick* picks;
  size_t picks_cap;
  size_t picks_len;
  uint32_t fits;
  hami_sink reason;
  /* Since 1.1: records vendor data for pick `pick` (e.g. the partition it
   * takes). The host copies it, charges it as a hold on the device, passes
   * it to encode_allocation and annotate_allocation, and expects
   * decode_pod_allocation to report the same bytes. Calling it for a pick
   * that does not end up in picks_len is harmless. NULL from a 1.0 host. */
  void* pick_data_ctx;
  void (*set_pick_data)(void* ctx, size_t pick, hami_str data);
} hami_fit_output;

/*
 * Purpose: one device of one container in an allocation annotation.
 * Since: 1.0
 */
typedef struct hami_alloc_device {
  uint32_t struct_size;
  hami_str id;
  hami_str type;
  int64_t memory_mib;
  int32_t cores;
} hami_alloc_device;

/* One container's devices (possibly none), for encode_allocation. */
typedef struct hami_container_alloc {
  const hami_alloc_device* devices;
  size_t devices_len;
} hami_container_alloc;

/*
 * Purpose: receives a decoded allocation: `container` opens the next
 * container's segment (called once per segment, empty ones included), then
 * `device` is called for each of its devices.
 * Since: 1.0
 */
typedef struct hami_allocation_sink {
  uint32_t struct_size;
  void* ctx;
  void (*container)(void* ctx);
  void (*device)(void* ctx, const hami_alloc_device* device);
} hami_allocation_sink;

/*
 * Purpose: outcome of a health check.
 *   healthy      — the vendor's devices on this node may be scheduled.
 *   needs_update — the host should (re)read the node's inventory.
 * Since: 1.0
 */
typedef struct hami_health_result {
  uint32_t struct_size;
  uint32_t healthy;
  uint32_t needs_update;
} hami_health_result;

/*
 * Purpose: one device of one container in an allocation, as the 1.1 calls
 *   pass it: hami_alloc_device plus the device's registered index (0 when
 *   decoded from a pod) and the pick's vendor data (empty when none).
 *   An array element: fixed for ABI 1.
 * Since: 1.1
 */
typedef struct hami_placed_device {
  hami_str id;
  hami_str type;
  int64_t memory_mib;
  int32_t cores;
  uint32_t index;
  hami_str data;
} hami_placed_device;

/* One container's devices (possibly none), for annotate_allocation. */
typedef struct hami_placed_container {
  const hami_placed_device* devices;
  size_t devices_len;
} hami_placed_container;

/*
 * Purpose: receives a pod's allocation from decode_pod_allocation, like
 *   hami_allocation_sink: `container` opens the next container's segment
 *   (once per segment, empty ones included), then `device` per device.
 * Since: 1.1
 */
typedef struct hami_placed_sink {
  uint32_t struct_size;
  void* ctx;
  void (*container)(void* ctx);
  void (*device)(void* ctx, const hami_placed_device* device);
} hami_placed_sink;

/*
 * Purpose: receives the partitions of a pod's allocation for the info
 *   metrics: `partition` once per partition, with the family (index into
 *   hami_device_description.partition_metrics), the device it is on and
 *   one value per label of the family.
 * Since: 1.1
 */
typedef struct hami_partition_sink {
  uint32_t struct_size;
  void* ctx;
  void (*partition)(void* ctx, size_t family, hami_str device_id, const hami_str* values,
                    size_t values_len);
} hami_partition_sink;

/*
 * Purpose: input of score_placement: the placement of one pod's containers
 *   of this vendor on one node, to be scored.
 * Params:
 *   pod          — the pod.
 *   node_name    — the node.
 *   node_policy  — the node policy in force for the pod (e.g. "binpack").
 *   devices      — this vendor's devices on the node with their usage
 *                  before the pod, in registration order.
 *   containers   — the pod's picks of this vendor, one entry per container
 *                  (init first; empty entries for containers without), each
 *                  device with its registered index and pick data.
 * Ownership / lifetime: borrowed for the call.
 * Since: 1.2
 */
typedef struct hami_placement_score_input {
  uint32_t struct_size;
  const hami_pod_view* pod;
  hami_str node_name;
  hami_str node_policy;
  const hami_device_usage* devices;
  size_t devices_len;
  const hami_placed_container* containers;
  size_t containers_len;
} hami_placement_score_input;

/*
 * Purpose: output of score_placement. // out
 *   score          — the vendor's term of the node score, in HAMi's units
 *                    (added to HAMi's default node score, 0..30).
 *   policy_neutral — 1: the term is preferred higher under every node
 *                    policy (HAMi's PolicyNeutralScore, weighted ×10000);
 *                    0: it is added as the default score is, so a policy
 *                    preferring low scores prefers a low term too.
 * Since: 1.2
 */
typedef struct hami_placement_score {
  uint32_t struct_size;
  double score;
  uint32_t policy_neutral;
} hami_placement_score;

/* ------------------------------------------------------------------------ */
/* Vtable                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Purpose: the device plugin's functions. Begins with the members of
 *   hami_vtable_header. A NULL optional member means "not implemented".
 * Since: 1.0 (all members below)
 */
typedef struct hami_device_vtable {
  uint32_t struct_size;
  hami_status (*create)(const hami_host_info* host, hami_str config_json, hami_instance** out,
                        hami_errbuf err);
  void (*destroy)(hami_instance* instance);

  /* describe — Required. Fills `out` (host sets struct_size).
   * Returns: HAMI_OK. */
  hami_status (*describe)(hami_instance* instance, hami_device_description* out, hami_errbuf err);

  /* mutate_container — Required. Admission: inspects container
   * `container_index` of `pod`, reports changes through `out` and sets
   * *uses_device to 1 when the container uses this vendor afterwards.
   * Returns: HAMI_OK; HAMI_INVALID_ARGUMENT with the message the webhook
   * denies with (e.g. an invalid percentage). */
  hami_status (*mutate_container)(hami_instance* instance, const hami_pod_view* pod,
                                  size_t container_index, const hami_container_mutation_sink* out,
                                  uint32_t* uses_device, hami_errbuf err);

  /* container_request — Required. Turns container `container_index`'s
   * resources into a request (out->count 0: none).
   * Returns: HAMI_OK (also when there is no request); HAMI_INVALID_ARGUMENT
   * when a value is unusable: *out is then zeroed (count 0) and the message
   * says which value, so the host can log it. */
  hami_status (*container_request)(hami_instance* instance, const hami_pod_view* pod,
                                   size_t container_index, hami_device_request* out,
                                   hami_errbuf err);

  /* decode_node — Required. Reads the node's registration (and topology,
   * cordon) annotations and reports devices through `out`.
   * Returns: HAMI_OK; HAMI_NOT_FOUND when the node carries no registration
   * of this vendor; HAMI_INVALID_ARGUMENT when it is malformed (message
   * names the annotation and the problem). On error the sink may have
   * received part of the devices; the host discards them. */
  hami_status (*decode_node)(hami_instance* instance, const hami_node_view* node,
                             const hami_device_sink* out, hami_errbuf err);

  /* node_health — Required. Decides whether the vendor's devices on the
   * node are usable at `now_unix`, and which node annotations the host
   * should write (handshake). May keep per-node memory in the instance.
   * Returns: HAMI_OK. */
  hami_status (*node_health)(hami_instance* instance, const hami_node_view* node, int64_t now_unix,
                             hami_health_result* out, const hami_annotation_sink* writes,
                             hami_errbuf err);

  /* node_cleanup — Optional. The host drops an unhealthy node's devices;
   * the plugin names annotations to remove and forgets its memory of it.
   * Returns: HAMI_OK. */
  hami_status (*node_cleanup)(hami_instance* instance, const hami_node_view* node,
                              const hami_annotation_sink* writes, hami_errbuf err);

  /* fit — Required. Hot path: places one container's request on one node.
   * Returns: HAMI_OK whether or not it fits (see out->fits);
   * HAMI_INVALID_ARGUMENT for inconsistent input (e.g. picks_cap too small).
   */
  hami_status (*fit)(hami_instance* instance, const hami_fit_input* in, hami_fit_output* out,
                     hami_errbuf err);

  /* encode_allocation — Required. Writes the allocation annotation value for
   * `containers_len` containers (init first), one segment per container.
   * Returns: HAMI_OK; HAMI_INVALID_ARGUMENT for a value that the grammar
   * cannot carry (a separator inside an id or type). */
  hami_status (*encode_allocation)(hami_instance* instance, const hami_container_alloc* containers,
                                   size_t containers_len, hami_sink out, hami_errbuf err);

  /* decode_allocation — Required. Parses an allocation annotation value.
   * Returns: HAMI_OK; HAMI_INVALID_ARGUMENT when malformed. */
  hami_status (*decode_allocation)(hami_instance* instance, hami_str value,
                                   const hami_allocation_sink* out, hami_errbuf err);

  /* ---- Since 1.1 (all optional; NULL or absent = the 1.0 behaviour) ---- */

  /* annotate_allocation — Optional (HAMI-HOST-11). Called once when the
   * host writes the allocation of `pod` on `node_name` (devices per
   * container, init first, with each pick's index and data): names further
   * pod annotations through `writes`, stored in the same patch as the
   * allocation strings. Keys must be listed in allocation_annotations.
   * Returns: HAMI_OK; HAMI_INVALID_ARGUMENT when a value cannot be encoded
   * (the allocation is then not written). */
  hami_status (*annotate_allocation)(hami_instance* instance, const hami_pod_view* pod,
                                     hami_str node_name, const hami_placed_container* containers,
                                     size_t containers_len, int64_t now_unix,
                                     const hami_annotation_sink* writes, hami_errbuf err);

  /* decode_pod_allocation — Optional (HAMI-HOST-11). Reads the pod's whole
   * allocation of this vendor from its annotations — the allocation string
   * and the further annotations — and reports it like decode_allocation,
   * with each device's `data`. The host then calls it instead of
   * decode_allocation for pods.
   * Returns: HAMI_OK; HAMI_NOT_FOUND when the pod carries no allocation of
   * this vendor; HAMI_INVALID_ARGUMENT when it is malformed. */
  hami_status (*decode_pod_allocation)(hami_instance* instance, const hami_pod_view* pod,
                                       const hami_placed_sink* out, hami_errbuf err);

  /* describe_partitions — Optional. Reports the partitions the pod's
   * allocation holds, for the partition_metrics families; a pod without
   * any reports none. Called at metrics scrape time.
   * Returns: HAMI_OK; HAMI_INVALID_ARGUMENT when the annotations are
   * malformed (the host then reports nothing for the pod). */
  hami_status (*describe_partitions)(hami_instance* instance, const hami_pod_view* pod,
                                     const hami_partition_sink* out, hami_errbuf err);

  /* ---- Since 1.2 (optional; NULL or absent = no vendor term) ---- */

  /* score_placement — Optional (HAMI-HOST-16). Scores where the pod's
   * containers of this vendor would be placed on a node (topology
   * concentration and the like). Called on fitting nodes only, after fit
   * has placed every container of the pod, for filter's node choice and
   * for prioritize. The host hands the term to the node policy
   * (hami_node_usage.vendor_score, vendor_neutral_score).
   * Returns: HAMI_OK; HAMI_INVALID_ARGUMENT for inconsistent input (the
   * host then scores the vendor term 0 and logs the message). */
  hami_status (*score_placement)(hami_instance* instance, const hami_placement_score_input* in,
                                 hami_placement_score* out, hami_errbuf err);
} hami_device_vtable;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HAMI_DEVICE_H */
