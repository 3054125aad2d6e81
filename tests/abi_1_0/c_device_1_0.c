/*
 * Fixture: a device plugin in plain C99 built against the frozen ABI 1.0
 * headers of tests/abi_1_0/include only — what a vendor compiled before
 * ABI 1.1 existed. The host of today must load it and schedule with it
 * (HAMI-HOST-4). Vendor "VINTAGE":
 *
 *   resources   example.com/vintage (count), example.com/vintage-mem (MiB),
 *               example.com/vintage-mem-percentage, example.com/vintage-cores
 *               (percent of a device)
 *   admission   a container asking for example.com/vintage without a memory
 *               or memory-percentage limit gets example.com/vintage-mem =
 *               2048; every one gets the env VINTAGE_VISIBLE=all; a count
 *               of 0 is denied
 *   request     no memory limit and no percentage: the whole device (100 %)
 *   node        example.com/vintage-register = "id,type,memMiB,slots;..."
 *               (every device has 100 cores); healthy when registered
 *   fit         first fit in the order given; per rejected device one of
 *               CardTimeSlicingExhausted, CardInsufficientMemory,
 *               CardInsufficientCore, as "<n>/<m> <Reason>" sorted, ", "
 *   allocation  "id,type,mem,cores:" per device, ";" after each container
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hami/device.h"

/* This file must see the frozen 1.0 headers, never the SDK's current ones
 * (C99 has no _Static_assert: a negative array size fails the build). */
typedef char vintage_built_against_abi_1_0[(HAMI_ABI_MAJOR == 1 && HAMI_ABI_MINOR == 0) ? 1 : -1];
/* The 1.0 description ends with memory_factor (plus padding): no cores_unit,
 * vendor_flags, allocation_annotations or partition_metrics. */
typedef char vintage_description_is_1_0[(sizeof(hami_device_description) -
                                             offsetof(hami_device_description, memory_factor) <=
                                         sizeof(int32_t) + sizeof(void*))
                                            ? 1
                                            : -1];
/* The 1.0 vtable ends with decode_allocation. */
typedef char vintage_vtable_is_1_0[(sizeof(hami_device_vtable) ==
                                    offsetof(hami_device_vtable, decode_allocation) + sizeof(void*))
                                       ? 1
                                       : -1];

#define COUNT_RESOURCE "example.com/vintage"
#define MEMORY_RESOURCE "example.com/vintage-mem"
#define PERCENT_RESOURCE "example.com/vintage-mem-percentage"
#define CORES_RESOURCE "example.com/vintage-cores"
#define REGISTER_ANNOTATION "example.com/vintage-register"
#define DEFAULT_MEMORY "2048"

struct hami_instance {
  int unused;
};

static hami_str lit(const char* s) {
  hami_str r;
  r.ptr = s;
  r.len = strlen(s);
  return r;
}

static hami_str span(const char* p, size_t n) {
  hami_str r;
  r.ptr = p;
  r.len = n;
  return r;
}

static int str_eq(hami_str s, const char* text) {
  size_t n = strlen(text);
  return s.len == n && (n == 0 || memcmp(s.ptr, text, n) == 0);
}

static void put_error(hami_errbuf err, const char* message) {
  size_t n = strlen(message);
  if (err.cap == 0 || err.buf == NULL) {
    return;
  }
  if (n > err.cap - 1) {
    n = err.cap - 1;
  }
  memcpy(err.buf, message, n);
  err.buf[n] = '\0';
}

static void append(hami_sink sink, const char* bytes, size_t len) {
  if (sink.append != NULL && len != 0) {
    sink.append(sink.ctx, bytes, len);
  }
}

static const hami_str* find_kv(const hami_kv* kvs, size_t n, const char* key) {
  size_t i;
  for (i = 0; i < n; ++i) {
    if (str_eq(kvs[i].key, key)) {
      return &kvs[i].value;
    }
  }
  return NULL;
}

/* Parses a whole hami_str as a non-negative decimal; 0 on success. */
static int parse_i64(hami_str s, int64_t* out) {
  int64_t value = 0;
  size_t i;
  if (s.len == 0 || s.len > 15) {
    return -1;
  }
  for (i = 0; i < s.len; ++i) {
    if (s.ptr[i] < '0' || s.ptr[i] > '9') {
      return -1;
    }
    value = value * 10 + (s.ptr[i] - '0');
  }
  *out = value;
  return 0;
}

/* Splits `s` at the first `sep`: *head is before it, the return value after
 * it (empty when absent). */
static hami_str cut(hami_str s, char sep, hami_str* head) {
  size_t i;
  for (i = 0; i < s.len; ++i) {
    if (s.ptr[i] == sep) {
      *head = span(s.ptr, i);
      return span(s.ptr + i + 1, s.len - i - 1);
    }
  }
  *head = s;
  return span(s.ptr + s.len, 0);
}

static int is_space(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

static hami_status create(const hami_host_info* host, hami_str config, hami_instance** out,
                          hami_errbuf err) {
  size_t first = 0, last = config.len;
  (void)host;
  *out = NULL;
  while (first < last && is_space(config.ptr[first])) {
    ++first;
  }
  while (last > first && is_space(config.ptr[last - 1])) {
    --last;
  }
  /* The schema allows no properties: only an empty object is usable. */
  if (last - first < 2 || config.ptr[first] != '{' || config.ptr[last - 1] != '}') {
    put_error(err, "vintage: config must be a JSON object");
    return HAMI_INVALID_ARGUMENT;
  }
  *out = (hami_instance*)calloc(1, sizeof(hami_instance));
  if (*out == NULL) {
    put_error(err, "vintage: out of memory");
    return HAMI_RESOURCE_EXHAUSTED;
  }
  return HAMI_OK;
}

static void destroy(hami_instance* self) {
  free(self);
}

static hami_status describe(hami_instance* self, hami_device_description* out, hami_errbuf err) {
  (void)self;
  if (out == NULL || out->struct_size < sizeof(hami_device_description)) {
    put_error(err, "vintage: hami_device_description is too small");
    return HAMI_INVALID_ARGUMENT;
  }
  out->vendor = lit("VINTAGE");
  out->count_resource = lit(COUNT_RESOURCE);
  out->memory_resource = lit(MEMORY_RESOURCE);
  out->memory_percent_resource = lit(PERCENT_RESOURCE);
  out->cores_resource = lit(CORES_RESOURCE);
  out->priority_resource = lit("");
  out->register_annotation = lit(REGISTER_ANNOTATION);
  out->handshake_annotation = lit("");
  out->to_allocate_annotation = lit("example.com/vintage-to-allocate");
  out->allocated_annotation = lit("example.com/vintage-allocated");
  out->memory_factor = 1;
  return HAMI_OK;
}

static hami_status mutate_container(hami_instance* self, const hami_pod_view* pod,
                                    size_t container_index, const hami_container_mutation_sink* out,
                                    uint32_t* uses_device, hami_errbuf err) {
  const hami_container_view* c;
  const hami_str* count;
  (void)self;
  *uses_device = 0;
  if (container_index >= pod->containers_len) {
    put_error(err, "vintage: no such container");
    return HAMI_INVALID_ARGUMENT;
  }
  c = &pod->containers[container_index];
  count = find_kv(c->limits, c->limits_len, COUNT_RESOURCE);
  if (count == NULL) {
    return HAMI_OK;
  }
  if (str_eq(*count, "0")) {
    put_error(err, COUNT_RESOURCE " must be at least 1");
    return HAMI_INVALID_ARGUMENT;
  }
  if (find_kv(c->limits, c->limits_len, MEMORY_RESOURCE) == NULL &&
      find_kv(c->limits, c->limits_len, PERCENT_RESOURCE) == NULL) {
    out->set_limit(out->ctx, lit(MEMORY_RESOURCE), lit(DEFAULT_MEMORY));
  }
  out->add_env(out->ctx, lit("VINTAGE_VISIBLE"), lit("all"));
  *uses_device = 1;
  return HAMI_OK;
}

static hami_status container_request(hami_instance* self, const hami_pod_view* pod,
                                     size_t container_index, hami_device_request* out,
                                     hami_errbuf err) {
  const hami_container_view* c;
  const hami_str *count, *memory, *percent, *cores;
  int64_t value = 0;
  (void)self;
  out->count = 0;
  out->memory_mib = 0;
  out->memory_percent = 0;
  out->cores = 0;
  if (container_index >= pod->containers_len) {
    put_error(err, "vintage: no such container");
    return HAMI_INVALID_ARGUMENT;
  }
  c = &pod->containers[container_index];
  count = find_kv(c->limits, c->limits_len, COUNT_RESOURCE);
  memory = find_kv(c->limits, c->limits_len, MEMORY_RESOURCE);
  percent = find_kv(c->limits, c->limits_len, PERCENT_RESOURCE);
  cores = find_kv(c->limits, c->limits_len, CORES_RESOURCE);
  if (count == NULL) {
    return HAMI_OK;
  }
  if (parse_i64(*count, &value) != 0 || value > 16) {
    put_error(err, COUNT_RESOURCE ": not a device count");
    return HAMI_INVALID_ARGUMENT;
  }
  if (memory != NULL && parse_i64(*memory, &out->memory_mib) != 0) {
    out->memory_mib = 0;
    put_error(err, MEMORY_RESOURCE ": not a number of MiB");
    return HAMI_INVALID_ARGUMENT;
  }
  if (percent != NULL) {
    int64_t pct = 0;
    if (parse_i64(*percent, &pct) != 0 || pct < 1 || pct > 100) {
      out->memory_mib = 0;
      put_error(err, PERCENT_RESOURCE ": not a percentage");
      return HAMI_INVALID_ARGUMENT;
    }
    out->memory_percent = (int32_t)pct;
  }
  if (cores != NULL) {
    int64_t pct = 0;
    if (parse_i64(*cores, &pct) != 0 || pct > 100) {
      out->memory_mib = 0;
      out->memory_percent = 0;
      put_error(err, CORES_RESOURCE ": not a percentage");
      return HAMI_INVALID_ARGUMENT;
    }
    out->cores = (int32_t)pct;
  }
  if (out->memory_mib == 0 && out->memory_percent == 0) {
    out->memory_percent = 100;
  }
  out->count = (int32_t)value;
  return HAMI_OK;
}

static hami_status decode_node(hami_instance* self, const hami_node_view* node,
                               const hami_device_sink* out, hami_errbuf err) {
  const hami_str* reg = find_kv(node->annotations, node->annotations_len, REGISTER_ANNOTATION);
  hami_str rest;
  uint32_t index = 0;
  (void)self;
  if (reg == NULL) {
    put_error(err, "node has no " REGISTER_ANNOTATION " annotation");
    return HAMI_NOT_FOUND;
  }
  rest = *reg;
  while (rest.len != 0) {
    hami_str entry, id, type, mem, slots;
    int64_t mem_value = 0, slots_value = 0;
    hami_device device;
    rest = cut(rest, ';', &entry);
    if (entry.len == 0) {
      continue;
    }
    entry = cut(entry, ',', &id);
    entry = cut(entry, ',', &type);
    entry = cut(entry, ',', &mem);
    entry = cut(entry, ',', &slots);
    if (id.len == 0 || type.len == 0 || entry.len != 0 || parse_i64(mem, &mem_value) != 0 ||
        parse_i64(slots, &slots_value) != 0 || slots_value == 0 || slots_value > 1000) {
      put_error(err, REGISTER_ANNOTATION ": malformed device entry (want id,type,memMiB,slots)");
      return HAMI_INVALID_ARGUMENT;
    }
    memset(&device, 0, sizeof device);
    device.struct_size = sizeof device;
    device.id = id;
    device.type = type;
    device.index = index++;
    device.count = (int32_t)slots_value;
    device.memory_mib = mem_value;
    device.cores = 100;
    device.flags = HAMI_DEVICE_HEALTHY;
    out->device(out->ctx, &device);
  }
  return HAMI_OK;
}

static hami_status node_health(hami_instance* self, const hami_node_view* node, int64_t now_unix,
                               hami_health_result* out, const hami_annotation_sink* writes,
                               hami_errbuf err) {
  (void)self;
  (void)now_unix;
  (void)writes;
  (void)err;
  out->healthy =
      find_kv(node->annotations, node->annotations_len, REGISTER_ANNOTATION) != NULL ? 1u : 0u;
  out->needs_update = 0;
  return HAMI_OK;
}

static int compare_text(const void* a, const void* b) {
  return strcmp((const char*)a, (const char*)b);
}

static hami_status fit(hami_instance* self, const hami_fit_input* in, hami_fit_output* out,
                       hami_errbuf err) {
  const hami_device_request* req = in->request;
  size_t i, counts[3] = {0, 0, 0};
  static const char* const names[3] = {"CardTimeSlicingExhausted", "CardInsufficientMemory",
                                       "CardInsufficientCore"};
  char entries[3][64];
  size_t n_entries = 0;
  (void)self;
  if (req->count < 0 || out->picks_cap < (size_t)req->count) {
    put_error(err, "picks_cap is smaller than the request");
    return HAMI_INVALID_ARGUMENT;
  }
  out->picks_len = 0;
  for (i = 0; i < in->devices_len && out->picks_len < (size_t)req->count; ++i) {
    const hami_device_usage* u = &in->devices[i];
    const hami_device* d = u->device;
    int64_t memory =
        req->memory_mib != 0 ? req->memory_mib : d->memory_mib * req->memory_percent / 100;
    hami_fit_pick* pick;
    if (u->used >= d->count) {
      ++counts[0];
      continue;
    }
    if (d->memory_mib - u->used_memory_mib < memory) {
      ++counts[1];
      continue;
    }
    if (d->cores - u->used_cores < req->cores) {
      ++counts[2];
      continue;
    }
    pick = &out->picks[out->picks_len++];
    pick->device = i;
    pick->type = d->type;
    pick->memory_mib = memory;
    pick->cores = req->cores;
  }
  out->fits = out->picks_len == (size_t)req->count ? 1u : 0u;
  if (out->fits) {
    return HAMI_OK;
  }
  for (i = 0; i < 3; ++i) {
    if (counts[i] != 0) {
      snprintf(entries[n_entries++], sizeof entries[0], "%zu/%zu %s", counts[i], in->devices_len,
               names[i]);
    }
  }
  qsort(entries, n_entries, sizeof entries[0], compare_text);
  for (i = 0; i < n_entries; ++i) {
    if (i != 0) {
      append(out->reason, ", ", 2);
    }
    append(out->reason, entries[i], strlen(entries[i]));
  }
  return HAMI_OK;
}

static int has_separator(hami_str s) {
  size_t i;
  for (i = 0; i < s.len; ++i) {
    if (s.ptr[i] == ',' || s.ptr[i] == ':' || s.ptr[i] == ';') {
      return 1;
    }
  }
  return 0;
}

static hami_status encode_allocation(hami_instance* self, const hami_container_alloc* containers,
                                     size_t containers_len, hami_sink out, hami_errbuf err) {
  size_t c, d;
  char numbers[48];
  (void)self;
  for (c = 0; c < containers_len; ++c) {
    for (d = 0; d < containers[c].devices_len; ++d) {
      if (has_separator(containers[c].devices[d].id) ||
          has_separator(containers[c].devices[d].type)) {
        put_error(err, "vintage: a device id or type contains a separator");
        return HAMI_INVALID_ARGUMENT;
      }
    }
  }
  for (c = 0; c < containers_len; ++c) {
    for (d = 0; d < containers[c].devices_len; ++d) {
      const hami_alloc_device* dev = &containers[c].devices[d];
      append(out, dev->id.ptr, dev->id.len);
      append(out, ",", 1);
      append(out, dev->type.ptr, dev->type.len);
      snprintf(numbers, sizeof numbers, ",%lld,%ld:", (long long)dev->memory_mib, (long)dev->cores);
      append(out, numbers, strlen(numbers));
    }
    append(out, ";", 1);
  }
  return HAMI_OK;
}

static hami_status decode_allocation(hami_instance* self, hami_str value,
                                     const hami_allocation_sink* out, hami_errbuf err) {
  hami_str rest = value;
  (void)self;
  while (rest.len != 0) {
    hami_str segment;
    rest = cut(rest, ';', &segment);
    out->container(out->ctx);
    while (segment.len != 0) {
      hami_str entry, id, type, mem, cores;
      int64_t mem_value = 0, cores_value = 0;
      hami_alloc_device device;
      segment = cut(segment, ':', &entry);
      entry = cut(entry, ',', &id);
      entry = cut(entry, ',', &type);
      entry = cut(entry, ',', &mem);
      entry = cut(entry, ',', &cores);
      if (id.len == 0 || type.len == 0 || entry.len != 0 || parse_i64(mem, &mem_value) != 0 ||
          parse_i64(cores, &cores_value) != 0 || cores_value > 100) {
        put_error(err, "vintage: malformed allocation entry (want id,type,mem,cores:)");
        return HAMI_INVALID_ARGUMENT;
      }
      memset(&device, 0, sizeof device);
      device.struct_size = sizeof device;
      device.id = id;
      device.type = type;
      device.memory_mib = mem_value;
      device.cores = (int32_t)cores_value;
      out->device(out->ctx, &device);
    }
  }
  return HAMI_OK;
}

/* The 1.0 vtable: exactly the ten 1.0 functions, nothing after them. */
static const hami_device_vtable vtable = {sizeof(hami_device_vtable),
                                          create,
                                          destroy,
                                          describe,
                                          mutate_container,
                                          container_request,
                                          decode_node,
                                          node_health,
                                          NULL /* node_cleanup */,
                                          fit,
                                          encode_allocation,
                                          decode_allocation};

HAMI_EXPORT hami_plugin_negotiate_t hami_plugin_negotiate;
HAMI_EXPORT hami_status hami_plugin_negotiate(const hami_host_info* host, hami_plugin_info* out,
                                              hami_errbuf err) {
  if (out == NULL || out->struct_size < sizeof(hami_plugin_info)) {
    put_error(err, "vintage: hami_plugin_info is too small");
    return HAMI_INVALID_ARGUMENT;
  }
  out->abi_major = HAMI_ABI_MAJOR;
  out->abi_minor = HAMI_ABI_MINOR;
  if (host->abi_major != HAMI_ABI_MAJOR) {
    put_error(err, "vintage is built for hami ABI 1");
    return HAMI_FAILED_PRECONDITION;
  }
  out->kind = HAMI_KIND_DEVICE;
  out->flags = 0;
  out->name = lit("vintage");
  out->version = lit("1.0.0");
  out->description = lit("a device plugin built against the ABI 1.0 headers");
  out->config_schema = lit("{\"type\": \"object\", \"additionalProperties\": false}");
  out->vtable = &vtable;
  return HAMI_OK;
}
