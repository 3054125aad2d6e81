/*
 * hami/plugin.h — the hami-scheduler plugin ABI, version 1: shared vocabulary
 * and the single entry point every plugin library exports.
 *
 * C99. Includes only <stddef.h> and <stdint.h>. Every rule referenced as
 * HAMI-PLUGIN-n / HAMI-HOST-n is stated in sdk/docs/ABI.md.
 *
 * Shape of a plugin library:
 *   - exports exactly one symbol, `hami_plugin_negotiate` (HAMI-PLUGIN-1);
 *   - negotiation hands back static information and the vtable of the
 *     plugin's kind (device.h, admission.h, scheduling.h);
 *   - the vtable's `create` makes instances from a JSON config document that
 *     the host has already validated against `config_schema`.
 *
 * Versioning (HAMI-HOST-3, HAMI-HOST-4): HAMI_ABI_MAJOR changes when anything
 * is removed, reordered or retyped; the host refuses a different major.
 * HAMI_ABI_MINOR changes when members are appended to a struct or vtable or
 * enum values are added; both sides read only what both know, decided by
 * `struct_size`.
 */
#ifndef HAMI_PLUGIN_H
#define HAMI_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HAMI_ABI_MAJOR 1
#define HAMI_ABI_MINOR 2

/* Marks the entry point as exported. Plugins are built with hidden
 * visibility (sdk/cmake/HamiPlugin.cmake), so this is the only symbol seen. */
#if defined(_WIN32)
#define HAMI_EXPORT __declspec(dllexport)
#else
#define HAMI_EXPORT __attribute__((visibility("default")))
#endif

/* True when a struct received from the other side is large enough to hold
 * `field`. Use it before reading any member appended after 1.0. */
#ifdef __cplusplus
/* C++ spelling: no C-style cast, so -Wold-style-cast stays quiet. */
#define HAMI_HAS_MEMBER(ptr, type, field) \
  ((ptr) != nullptr && (ptr)->struct_size >= offsetof(type, field) + sizeof(type::field))
#else
#define HAMI_HAS_MEMBER(ptr, type, field) \
  ((ptr) != NULL && (ptr)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))
#endif

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */
/* ------------------------------------------------------------------------ */

/*
 * Purpose: outcome of every ABI call that can fail. Numbered like the
 *   gRPC/absl canonical codes. Readers must treat unknown values as
 *   HAMI_INTERNAL (HAMI-HOST-6).
 * Since: 1.0
 */
typedef int32_t hami_status;
#define HAMI_OK 0
#define HAMI_CANCELLED 1
#define HAMI_UNKNOWN 2
#define HAMI_INVALID_ARGUMENT 3 /* the input is wrong; message says how    */
#define HAMI_NOT_FOUND 5
#define HAMI_ALREADY_EXISTS 6
#define HAMI_PERMISSION_DENIED 7
#define HAMI_RESOURCE_EXHAUSTED 8  /* out of memory, quota exceeded         */
#define HAMI_FAILED_PRECONDITION 9 /* e.g. plugin needs a newer host minor */
#define HAMI_OUT_OF_RANGE 11
#define HAMI_UNIMPLEMENTED 12
#define HAMI_INTERNAL 13 /* a bug or an exception inside the plugin        */
#define HAMI_UNAVAILABLE 14

/* ------------------------------------------------------------------------ */
/* Vocabulary types                                                         */
/* ------------------------------------------------------------------------ */

/*
 * Purpose: a borrowed byte string.
 * Ownership / lifetime: the side that passes it owns it; it is valid only
 *   for the duration of the call it is passed to, unless the member's own
 *   documentation says otherwise. NOT NUL-terminated by contract
 *   (HAMI-PLUGIN-3). `ptr` may be NULL only when `len` is 0.
 * Since: 1.0
 */
typedef struct hami_str {
  const char* ptr;
  size_t len;
} hami_str;

/*
 * Purpose: host-owned storage for an error message (HAMI-PLUGIN-4).
 * The plugin writes at most `cap - 1` bytes and a terminating NUL; it
 * truncates longer messages. `cap` may be 0 (then nothing is written) and
 * `buf` may be NULL only when `cap` is 0.
 * Threading: each call gets its own buffer, so concurrent calls never share.
 * Since: 1.0
 */
typedef struct hami_errbuf {
  char* buf;
  size_t cap;
} hami_errbuf;

/*
 * Purpose: host-owned output for variable-size text. The plugin calls
 * `append` any number of times; the host copies the bytes before returning.
 * The host never frees plugin memory and the plugin never frees host memory
 * (HAMI-PLUGIN-5).
 * Since: 1.0
 */
typedef struct hami_sink {
  void* ctx;
  void (*append)(void* ctx, const char* bytes, size_t len);
} hami_sink;

/* A borrowed key/value pair (annotations, labels, resource lists, env). */
typedef struct hami_kv {
  hami_str key;
  hami_str value;
} hami_kv;

/* Opaque plugin instance, created by a vtable's `create`. */
typedef struct hami_instance hami_instance;

/* ------------------------------------------------------------------------ */
/* Host services                                                            */
/* ------------------------------------------------------------------------ */

#define HAMI_LOG_DEBUG 0
#define HAMI_LOG_INFO 1
#define HAMI_LOG_WARN 2
#define HAMI_LOG_ERROR 3

/*
 * Purpose: services the host offers to plugins.
 * Ownership / lifetime: owned by the host; valid from negotiation until the
 *   library is unloaded.
 * Threading: every function may be called from any thread at any time.
 * Since: 1.0
 */
typedef struct hami_host_api {
  uint32_t struct_size;
  /* Writes one log line attributed to the plugin. `level` is HAMI_LOG_*.
   * Required (the host always provides it). Since: 1.0 */
  void (*log)(void* host_ctx, int32_t level, hami_str message);
  /* Wall-clock time in Unix seconds, as the host sees it (tests can move
   * it). Required. Since: 1.0 */
  int64_t (*now_unix)(void* host_ctx);
} hami_host_api;

/* ------------------------------------------------------------------------ */
/* Negotiation                                                              */
/* ------------------------------------------------------------------------ */

#define HAMI_KIND_DEVICE 1u     /* vendor logic: nvidia.so, amd.so        */
#define HAMI_KIND_ADMISSION 2u  /* the webhook's routing decision         */
#define HAMI_KIND_SCHEDULING 3u /* node scoring and device ordering       */

/* The plugin accepts concurrent calls on one instance. Policy plugins must
 * set it (HAMI-PLUGIN-8); device plugins without it are serialised by the
 * host with a per-instance mutex (HAMI-HOST-8). */
#define HAMI_FLAG_CONCURRENT_SAFE 0x1u
/* The host must not unload the library before process exit. */
#define HAMI_FLAG_KEEP_LOADED 0x2u

/*
 * Purpose: what the host tells the plugin during negotiation.
 * Params: filled by the host; `host`/`host_ctx` stay valid while the
 *   library is loaded.
 * Since: 1.0
 */
typedef struct hami_host_info {
  uint32_t struct_size;
  uint16_t abi_major; /* the host's HAMI_ABI_MAJOR                         */
  uint16_t abi_minor; /* the host's HAMI_ABI_MINOR                         */
  const hami_host_api* host;
  void* host_ctx;        /* first argument of every hami_host_api function        */
  hami_str host_version; /* e.g. "0.1.0"                                   */
} hami_host_info;

/*
 * Purpose: what the plugin tells the host.
 * Params: the host zeroes the struct and sets `struct_size` to the size it
 *   knows; the plugin fills at most that many bytes (HAMI-PLUGIN-2) // out
 * Ownership / lifetime: every string and the vtable live in the plugin's
 *   static storage for as long as the library is loaded (HAMI-PLUGIN-6).
 * Versioning: the first three members (struct_size, abi_major, abi_minor),
 *   here and in hami_host_info, keep their place in every ABI major, so a
 *   plugin can always report its version, even to a host it refuses, and
 *   the host can name both versions (HAMI-HOST-3).
 * Since: 1.0
 */
typedef struct hami_plugin_info {
  uint32_t struct_size;
  uint16_t abi_major; /* HAMI_ABI_MAJOR the plugin was compiled with       */
  uint16_t abi_minor; /* HAMI_ABI_MINOR the plugin was compiled with       */
  uint32_t kind;      /* HAMI_KIND_*                                       */
  uint32_t flags;     /* HAMI_FLAG_*                                       */
  hami_str name;      /* short identifier, e.g. "nvidia"; [a-z0-9_-]+       */
  hami_str version;   /* the plugin's own semantic version                 */
  hami_str description;
  /* JSON Schema (draft 4, as RapidJSON validates it) for the plugin's
   * config document. Empty means "no schema": the host then only checks
   * that the config is a JSON object. */
  hami_str config_schema;
  /* Points at a hami_device_vtable, hami_admission_vtable or
   * hami_scheduling_vtable according to `kind`. */
  const void* vtable;
} hami_plugin_info;

/*
 * Purpose: the one function a plugin library exports. It is a function
 *   TYPE, so hosts can write shared_library::get<hami_plugin_negotiate_t>.
 * Required: yes.
 * Params: `in` borrowed; `out` host-owned, see hami_plugin_info; `err` for
 *   the reason when refusing.
 * Returns: HAMI_OK; HAMI_FAILED_PRECONDITION when the plugin needs a newer
 *   host (the message names the host minor it needs); any other code is
 *   treated as a refusal.
 * Threading: called once per load, on the host's main thread.
 * Since: 1.0
 */
typedef hami_status hami_plugin_negotiate_t(const hami_host_info* in, hami_plugin_info* out,
                                            hami_errbuf err);

/* The entry point's name, for hosts that look it up by string. */
#define HAMI_PLUGIN_ENTRY_POINT "hami_plugin_negotiate"

/*
 * Purpose: the members every vtable begins with, in this order. Each kind's
 * vtable repeats them at its start so the host can check them generically.
 *
 *   uint32_t struct_size;
 *   hami_status (*create)(const hami_host_info* host, hami_str config_json,
 *                         hami_instance** out, hami_errbuf err);
 *   void (*destroy)(hami_instance* instance);
 *
 * create — Required. Makes an instance from the config document (a JSON
 *   object already validated against config_schema). Returns HAMI_OK and
 *   sets *out, or an error with a message; *out is then ignored.
 * destroy — Required. Releases an instance; destroy(NULL) is a no-op
 *   (HAMI-PLUGIN-7). Called once per instance, after every other call on
 *   it has returned.
 */
typedef struct hami_vtable_header {
  uint32_t struct_size;
  hami_status (*create)(const hami_host_info* host, hami_str config_json, hami_instance** out,
                        hami_errbuf err);
  void (*destroy)(hami_instance* instance);
} hami_vtable_header;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HAMI_PLUGIN_H */
