/*
 * Fixture, built twice: with LIAR_MINOR 1 (liar-1-1) a device plugin of ABI
 * 1.1, with LIAR_MINOR 2 (liar-1-2) one of ABI 1.2. Either works as a 1.0
 * device (no devices) but describes members no host can use, each of which
 * hami-plugin-check's device-abi-1-1 (and device-abi-1-2) check must name:
 *   - cores_unit 7 (not a HAMI_CORES_ value);
 *   - vendor_flags with the unknown bit 0x10 next to HAMI_VENDOR_MULTI_PICK;
 *   - allocation_annotations repeating an entry and naming the allocated
 *     annotation;
 *   - a partition metric family named "liar-partition" (not a Prometheus
 *     name), another with an empty help, a label "device_uuid" (the host's
 *     own) and a label "2nd";
 *   - partition_metrics without describe_partitions;
 *   - node_lock 5 (liar-1-1), or (liar-1-2) HAMI_NODE_LOCK_OWN on the
 *     annotation "bad key!" with expiry 0, and a score_placement that scores
 *     NaN and accepts a NULL input.
 */
#include <math.h>
#include <string.h>

#include "../fixtures/plugins/fixture_text.h"
#include "hami/device.h"

#ifndef LIAR_MINOR
#define LIAR_MINOR 1
#endif
#define LIAR_STRINGIFY(x) #x
#define LIAR_TEXT(x) LIAR_STRINGIFY(x)
#define LIAR_NAME "liar-1-" LIAR_TEXT(LIAR_MINOR)

struct hami_instance {
  int unused;
};

static hami_instance the_instance;

static hami_status create(const hami_host_info* host, hami_str config, hami_instance** out,
                          hami_errbuf err) {
  (void)host;
  if (config.len < 2 || config.ptr[0] != '{' || config.ptr[config.len - 1] != '}') {
    put_error(err, LIAR_NAME ": config must be a JSON object");
    return HAMI_INVALID_ARGUMENT;
  }
  *out = &the_instance;
  return HAMI_OK;
}

static void destroy(hami_instance* instance) {
  (void)instance;
}

static const hami_str annotations[] = {{"example.com/liar-extra", 22},
                                       {"example.com/liar-extra", 22},
                                       {"example.com/liar-allocated", 26}};
static const hami_str good_labels[] = {{"profile", 7}};
static const hami_str bad_labels[] = {{"device_uuid", 11}, {"2nd", 3}};
static const hami_metric_family families[] = {
    {{"liar-partition", 14}, {"partitions of a liar", 20}, good_labels, 1, 0},
    {{"liar_partition_info", 19}, {"", 0}, bad_labels, 2, 0}};

static hami_status describe(hami_instance* instance, hami_device_description* out,
                            hami_errbuf err) {
  (void)instance;
  (void)err;
  out->vendor = lit("LIAR");
  out->count_resource = lit("example.com/liar");
  out->register_annotation = lit("example.com/liar-register");
  out->to_allocate_annotation = lit("example.com/liar-to-allocate");
  out->allocated_annotation = lit("example.com/liar-allocated");
  out->memory_factor = 1;
  if (HAMI_HAS_MEMBER(out, hami_device_description, partition_metrics_len)) {
    out->cores_unit = 7;
    out->vendor_flags = HAMI_VENDOR_MULTI_PICK | 0x10u;
    out->allocation_annotations = annotations;
    out->allocation_annotations_len = 3;
    out->partition_metrics = families;
    out->partition_metrics_len = 2;
  }
#if LIAR_MINOR >= 2
  if (HAMI_HAS_MEMBER(out, hami_device_description, own_lock_expiry_seconds)) {
    out->node_lock = HAMI_NODE_LOCK_OWN;
    out->own_lock_annotation = lit("bad key!");
    out->own_lock_expiry_seconds = 0;
  }
#else
  if (HAMI_HAS_MEMBER(out, hami_device_description, node_lock))
    out->node_lock = 5;
#endif
  return HAMI_OK;
}

static hami_status mutate_container(hami_instance* instance, const hami_pod_view* pod, size_t index,
                                    const hami_container_mutation_sink* out, uint32_t* uses_device,
                                    hami_errbuf err) {
  (void)instance;
  (void)out;
  (void)err;
  *uses_device = 0;
  return index < pod->containers_len ? HAMI_OK : HAMI_INVALID_ARGUMENT;
}

static hami_status container_request(hami_instance* instance, const hami_pod_view* pod,
                                     size_t index, hami_device_request* out, hami_errbuf err) {
  (void)instance;
  (void)err;
  out->count = 0;
  return index < pod->containers_len ? HAMI_OK : HAMI_INVALID_ARGUMENT;
}

static hami_status decode_node(hami_instance* instance, const hami_node_view* node,
                               const hami_device_sink* out, hami_errbuf err) {
  (void)instance;
  (void)node;
  (void)out;
  put_error(err, "no registration");
  return HAMI_NOT_FOUND;
}

static hami_status node_health(hami_instance* instance, const hami_node_view* node,
                               int64_t now_unix, hami_health_result* out,
                               const hami_annotation_sink* writes, hami_errbuf err) {
  (void)instance;
  (void)node;
  (void)now_unix;
  (void)writes;
  (void)err;
  out->healthy = 0;
  return HAMI_OK;
}

static hami_status fit(hami_instance* instance, const hami_fit_input* in, hami_fit_output* out,
                       hami_errbuf err) {
  (void)instance;
  (void)in;
  (void)err;
  out->picks_len = 0;
  out->fits = 0;
  return HAMI_OK;
}

static hami_status encode_allocation(hami_instance* instance,
                                     const hami_container_alloc* containers, size_t len,
                                     hami_sink out, hami_errbuf err) {
  (void)instance;
  (void)containers;
  (void)len;
  (void)out;
  (void)err;
  return HAMI_OK;
}

static hami_status decode_allocation(hami_instance* instance, hami_str value,
                                     const hami_allocation_sink* out, hami_errbuf err) {
  (void)instance;
  (void)value;
  (void)out;
  (void)err;
  return HAMI_OK;
}

#if LIAR_MINOR >= 2
static hami_status score_placement(hami_instance* instance, const hami_placement_score_input* in,
                                   hami_placement_score* out, hami_errbuf err) {
  (void)instance;
  (void)in;
  (void)err;
  out->score = NAN;
  return HAMI_OK;
}
#define LIAR_SCORE_PLACEMENT score_placement
#else
#define LIAR_SCORE_PLACEMENT NULL
#endif

static const hami_device_vtable vtable = {sizeof(hami_device_vtable),
                                          create,
                                          destroy,
                                          describe,
                                          mutate_container,
                                          container_request,
                                          decode_node,
                                          node_health,
                                          NULL,
                                          fit,
                                          encode_allocation,
                                          decode_allocation,
                                          NULL /* annotate_allocation */,
                                          NULL /* decode_pod_allocation */,
                                          NULL /* describe_partitions */,
                                          LIAR_SCORE_PLACEMENT};

HAMI_EXPORT hami_plugin_negotiate_t hami_plugin_negotiate;
HAMI_EXPORT hami_status hami_plugin_negotiate(const hami_host_info* host, hami_plugin_info* out,
                                              hami_errbuf err) {
  (void)host;
  if (out == NULL || out->struct_size < sizeof(hami_plugin_info)) {
    put_error(err, LIAR_NAME ": hami_plugin_info is too small");
    return HAMI_INVALID_ARGUMENT;
  }
  out->abi_major = HAMI_ABI_MAJOR;
  out->abi_minor = LIAR_MINOR;
  out->kind = HAMI_KIND_DEVICE;
  out->flags = 0;
  out->name = lit(LIAR_NAME);
  out->version = lit("1." LIAR_TEXT(LIAR_MINOR) ".0");
  out->description = lit("describes 1.1 members no host can use");
  out->config_schema = lit("{\"type\": \"object\"}");
  out->vtable = &vtable;
  return HAMI_OK;
}
