/*
 * Fixture: a device plugin that negotiates and loads but breaks the
 * contract in three ways hami-plugin-check must report readably:
 *   - create accepts any config, "[]" and "not json" included
 *     (bad-config-rejected, device-bad-config, host-loader);
 *   - describe names no vendor (device-describe);
 *   - decode_allocation aborts the process on any input
 *     (device-garbage-allocations, device-allocation-round-trip: a crash).
 * Everything else answers like a device with no devices.
 */
#include <stdlib.h>
#include <string.h>

#include "../fixtures/plugins/fixture_text.h"
#include "hami/device.h"

struct hami_instance {
  int unused;
};

static hami_instance the_instance;

static hami_status create(const hami_host_info* host, hami_str config, hami_instance** out,
                          hami_errbuf err) {
  (void)host;
  (void)config;
  (void)err;
  *out = &the_instance;
  return HAMI_OK;
}

static void destroy(hami_instance* instance) {
  (void)instance;
}

static hami_status describe(hami_instance* instance, hami_device_description* out,
                            hami_errbuf err) {
  (void)instance;
  (void)err;
  out->count_resource = lit("example.com/broken");
  out->register_annotation = lit("example.com/broken-register");
  out->allocated_annotation = lit("example.com/broken-allocated");
  out->memory_factor = 1;
  return HAMI_OK;
}

static hami_status mutate_container(hami_instance* instance, const hami_pod_view* pod, size_t index,
                                    const hami_container_mutation_sink* out, uint32_t* uses_device,
                                    hami_errbuf err) {
  (void)instance;
  (void)out;
  (void)err;
  if (index >= pod->containers_len) {
    return HAMI_INVALID_ARGUMENT;
  }
  *uses_device = 0;
  return HAMI_OK;
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
  (void)err;
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
  abort();
}

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
                                          NULL,
                                          NULL,
                                          NULL,
                                          NULL};

HAMI_EXPORT hami_status hami_plugin_negotiate(const hami_host_info* host, hami_plugin_info* out,
                                              hami_errbuf err) {
  (void)host;
  (void)err;
  if (out == NULL || out->struct_size < sizeof(hami_plugin_info)) {
    return HAMI_INVALID_ARGUMENT;
  }
  out->abi_major = HAMI_ABI_MAJOR;
  out->abi_minor = HAMI_ABI_MINOR;
  out->kind = HAMI_KIND_DEVICE;
  out->flags = 0;
  out->name = lit("broken-device");
  out->version = lit("0.0.1");
  out->description = lit("breaks the device contract on purpose");
  out->config_schema = lit("");
  out->vtable = &vtable;
  return HAMI_OK;
}
