// The device contract of sdk/include/hami/device.h, checked at the raw C
// level as any host would call it: a complete vtable, an empty config
// accepted, bad configs refused with a message, garbage annotations answered
// with errors (never a crash or an internal error), containers without
// resources left alone, an allocation round trip, a fit without devices, and
// concurrent calls for plugins that declare them safe.
#include <rapidjson/document.h>

#include <memory>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <rapidjson/schema.h>
#pragma GCC diagnostic pop

#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "conformance/check_context.hpp"

namespace hami::conformance {
namespace {

using Text = PluginUnderTest;

hami_str hs(const std::string& s) {
  return hami_str{s.data(), s.size()};
}

struct Err {
  char buf[4096];
  Err() { std::memset(buf, 0x7f, sizeof buf); }
  hami_errbuf get() { return hami_errbuf{buf, sizeof buf}; }
  std::string message() const { return std::string(buf, ::strnlen(buf, sizeof buf)); }
};

std::string status_text(hami_status s) {
  return status_name(s);
}

// An instance made with `config`, destroyed at scope exit.
class Instance {
 public:
  Instance(const PluginUnderTest& p, const std::string& config)
      : vt_(p.vtable<hami_device_vtable>()) {
    Err e;
    status_ = vt_.create(&PluginUnderTest::host_info(), hs(config), &instance_, e.get());
    message_ = e.message();
  }
  ~Instance() {
    if (status_ == HAMI_OK && instance_ != nullptr) {
      vt_.destroy(instance_);
    }
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  [[nodiscard]] hami_status status() const { return status_; }
  [[nodiscard]] const std::string& message() const { return message_; }
  [[nodiscard]] hami_instance* get() const { return instance_; }
  [[nodiscard]] const hami_device_vtable& vt() const { return vt_; }

 private:
  const hami_device_vtable& vt_;
  hami_instance* instance_ = nullptr;
  hami_status status_ = HAMI_INTERNAL;
  std::string message_;
};

struct Description {
  std::string vendor, count_resource, register_annotation, allocated_annotation;
  int32_t memory_factor = 0;
};

bool complete(const PluginUnderTest& p) {
  const hami_device_vtable& vt = p.vtable<hami_device_vtable>();
  return vt.struct_size >= offsetof(hami_device_vtable, decode_allocation) + sizeof(void*) &&
         vt.create != nullptr && vt.destroy != nullptr && vt.describe != nullptr &&
         vt.mutate_container != nullptr && vt.container_request != nullptr &&
         vt.decode_node != nullptr && vt.node_health != nullptr && vt.fit != nullptr &&
         vt.encode_allocation != nullptr && vt.decode_allocation != nullptr;
}

// False, after recording it, when the vtable cannot be called safely.
bool usable(const PluginUnderTest& p, CheckContext& c) {
  return c.expect(complete(p), "the device vtable is incomplete (see device-vtable)");
}

bool describe(const Instance& inst, CheckContext& c, Description& out) {
  hami_device_description d{};
  d.struct_size = sizeof d;
  Err e;
  const hami_status s = inst.vt().describe(inst.get(), &d, e.get());
  if (!c.expect(s == HAMI_OK, "describe failed: " + status_text(s) + " " + e.message())) {
    return false;
  }
  out = Description{Text::text(d.vendor), Text::text(d.count_resource),
                    Text::text(d.register_annotation), Text::text(d.allocated_annotation),
                    d.memory_factor};
  return true;
}

// The plugin's instance made with "{}" — and its description when `d` is
// given — for a check that needs a working one; null once the check has
// recorded why there is none.
std::unique_ptr<Instance> open_default(const PluginUnderTest& p, CheckContext& c,
                                       Description* d = nullptr) {
  if (!usable(p, c)) {
    return nullptr;
  }
  auto inst = std::make_unique<Instance>(p, "{}");
  if (!c.expect(inst->status() == HAMI_OK, "create({}) failed: " + inst->message())) {
    return nullptr;
  }
  if (d != nullptr && !describe(*inst, c, *d)) {
    return nullptr;
  }
  return inst;
}

// A pod with one container whose limits are `limits`.
struct OnePod {
  std::vector<std::pair<std::string, std::string>> limit_text;
  std::vector<hami_kv> limits;
  hami_container_view container{};
  hami_pod_view pod{};
  explicit OnePod(std::vector<std::pair<std::string, std::string>> l) : limit_text(std::move(l)) {
    for (const auto& [k, v] : limit_text) {
      limits.push_back(hami_kv{hs(k), hs(v)});
    }
    container.struct_size = sizeof container;
    container.name = hami_str{"main", 4};
    container.limits = limits.data();
    container.limits_len = limits.size();
    pod.struct_size = sizeof pod;
    pod.namespace_ = hami_str{"default", 7};
    pod.name = hami_str{"conformance", 11};
    pod.containers = &container;
    pod.containers_len = 1;
  }
  OnePod(const OnePod&) = delete;
  OnePod& operator=(const OnePod&) = delete;
};

struct OneNode {
  std::vector<std::pair<std::string, std::string>> annotation_text;
  std::vector<hami_kv> annotations;
  hami_node_view node{};
  explicit OneNode(std::vector<std::pair<std::string, std::string>> a)
      : annotation_text(std::move(a)) {
    for (const auto& [k, v] : annotation_text) {
      annotations.push_back(hami_kv{hs(k), hs(v)});
    }
    node.struct_size = sizeof node;
    node.name = hami_str{"node-1", 6};
    node.annotations = annotations.data();
    node.annotations_len = annotations.size();
  }
  OneNode(const OneNode&) = delete;
  OneNode& operator=(const OneNode&) = delete;
};

void ignore_device(void*, const hami_device*) {}
void ignore_pair(void*, hami_str, hami_str, int32_t) {}
void count_device(void* ctx, const hami_device*) {
  ++*static_cast<int*>(ctx);
}
void ignore_set(void*, hami_str, hami_str) {}
void ignore_remove(void*, hami_str) {}
void ignore_container(void*) {}
void ignore_alloc(void*, const hami_alloc_device*) {}
void append(void* ctx, const char* p, size_t n) {
  static_cast<std::string*>(ctx)->append(p, n);
}

void device_vtable(const PluginUnderTest& p, CheckContext& c) {
  const hami_device_vtable& vt = p.vtable<hami_device_vtable>();
  c.expect(
      vt.struct_size >= offsetof(hami_device_vtable, decode_allocation) + sizeof(void*),
      "vtable struct_size " + std::to_string(vt.struct_size) + " does not reach decode_allocation");
  const std::pair<bool, const char*> members[] = {
      {vt.create != nullptr, "create"},
      {vt.destroy != nullptr, "destroy"},
      {vt.describe != nullptr, "describe"},
      {vt.mutate_container != nullptr, "mutate_container"},
      {vt.container_request != nullptr, "container_request"},
      {vt.decode_node != nullptr, "decode_node"},
      {vt.node_health != nullptr, "node_health"},
      {vt.fit != nullptr, "fit"},
      {vt.encode_allocation != nullptr, "encode_allocation"},
      {vt.decode_allocation != nullptr, "decode_allocation"}};
  for (const auto& [present, name] : members) {
    c.expect(present, std::string(name) + " is NULL");
  }
}

void device_empty_section(const PluginUnderTest& p, CheckContext& c) {
  if (!usable(p, c)) {
    return;
  }
  const std::string schema = Text::text(p.info().config_schema);
  if (c.expect(!schema.empty(), "device plugins declare their config schema")) {
    rapidjson::Document doc;
    doc.Parse(schema.data(), schema.size());
    if (c.expect(!doc.HasParseError() && doc.IsObject(), "config_schema is not a JSON object")) {
      const rapidjson::SchemaDocument compiled(doc);
      rapidjson::Document empty;
      empty.Parse("{}");
      rapidjson::SchemaValidator validator(compiled);
      c.expect(empty.Accept(validator), "the schema rejects {} (an absent device-config section)");
    }
  }
  const Instance inst(p, "{}");
  c.expect(inst.status() == HAMI_OK, "create({}) failed: " + status_text(inst.status()) + " " +
                                         inst.message() +
                                         " (a device plugin must run without its section)");
}

void device_bad_config(const PluginUnderTest& p, CheckContext& c) {
  if (!usable(p, c)) {
    return;
  }
  for (const std::string bad : {"{", "[]", "not json", "\"text\""}) {
    const Instance inst(p, bad);
    c.expect(inst.status() != HAMI_OK, "create accepted the config " + bad);
    c.expect(inst.status() != HAMI_INTERNAL, "create(" + bad + ") failed with HAMI_INTERNAL");
    c.expect(inst.status() == HAMI_OK || !inst.message().empty(),
             "create refused " + bad + " without a message");
  }
  // A long message is cut at cap - 1 bytes and terminated.
  hami_instance* out = nullptr;
  char eight[9];
  std::memset(eight, 'x', sizeof eight);
  c.expect(p.vtable<hami_device_vtable>().create(&PluginUnderTest::host_info(), hami_str{"{", 1},
                                                 &out, hami_errbuf{eight, 8}) != HAMI_OK,
           "create accepted '{'");
  c.expect(::strnlen(eight, 8) == 7u && eight[8] == 'x',
           "an error message was not truncated to capacity - 1 bytes plus NUL");
}

void device_describe(const PluginUnderTest& p, CheckContext& c) {
  if (!usable(p, c)) {
    return;
  }
  const Instance inst(p, "{}");
  if (!c.expect(inst.status() == HAMI_OK, "create({}) failed: " + inst.message())) {
    return;
  }
  Description d;
  if (!describe(inst, c, d)) {
    return;
  }
  c.expect(!d.vendor.empty(), "describe: empty vendor");
  c.expect(!d.count_resource.empty(), "describe: empty count_resource");
  // register_annotation may be empty: a vendor whose inventory is the
  // node's capacity (HAMi's Cambricon, AWS Neuron, Mthreads) has none.
  c.expect(!d.allocated_annotation.empty(), "describe: empty allocated_annotation");
  c.expect(d.memory_factor >= 1,
           "describe: memory_factor " + std::to_string(d.memory_factor) + " is below 1");
}

void device_no_resources(const PluginUnderTest& p, CheckContext& c) {
  Description d;
  const auto opened = open_default(p, c, &d);
  if (!opened) {
    return;
  }
  const Instance& inst = *opened;
  OnePod empty({});
  hami_container_mutation_sink sink{};
  sink.struct_size = sizeof sink;
  int calls = 0;
  sink.ctx = &calls;
  sink.set_limit = [](void* ctx, hami_str, hami_str) { ++*static_cast<int*>(ctx); };
  sink.add_env = [](void*, hami_str, hami_str) {};
  sink.set_runtime_class = [](void* ctx, hami_str) { ++*static_cast<int*>(ctx); };
  sink.set_request = [](void* ctx, hami_str, hami_str) { ++*static_cast<int*>(ctx); };
  sink.set_pod_annotation = [](void* ctx, hami_str, hami_str) { ++*static_cast<int*>(ctx); };
  uint32_t uses = 7;
  Err e;
  const hami_status mutated =
      inst.vt().mutate_container(inst.get(), &empty.pod, 0, &sink, &uses, e.get());
  if (c.expect(mutated == HAMI_OK,
               "mutate_container of a container without resources failed: " + e.message())) {
    c.expect(uses == 0u, "a container without resources was reported as using the device");
    c.expect(
        calls == 0,
        "a container without resources was given limits, requests, pod annotations or a runtime "
        "class");
  }
  hami_device_request r{};
  r.struct_size = sizeof r;
  r.count = 99;
  if (c.expect(inst.vt().container_request(inst.get(), &empty.pod, 0, &r, e.get()) == HAMI_OK,
               "container_request of a container without resources failed")) {
    c.expect(r.count == 0,
             "a container without resources requests " + std::to_string(r.count) + " devices");
  }
  OnePod one({{d.count_resource, "1"}});
  if (c.expect(inst.vt().container_request(inst.get(), &one.pod, 0, &r, e.get()) == HAMI_OK,
               "container_request of " + d.count_resource + ": 1 failed: " + e.message())) {
    c.expect(r.count == 1,
             d.count_resource + ": 1 requests " + std::to_string(r.count) + " devices");
  }
  c.expect(
      inst.vt().container_request(inst.get(), &one.pod, 5, &r, e.get()) == HAMI_INVALID_ARGUMENT,
      "a container index past the pod's containers is not HAMI_INVALID_ARGUMENT");
}

void device_garbage_registrations(const PluginUnderTest& p, CheckContext& c) {
  Description d;
  const auto opened = open_default(p, c, &d);
  if (!opened) {
    return;
  }
  const Instance& inst = *opened;
  if (d.register_annotation.empty()) {
    c.skip("registers from node capacity: no register_annotation to feed garbage to");
    return;
  }
  std::vector<std::string> garbage = {"",
                                      "[",
                                      "]",
                                      "{}",
                                      "null",
                                      "[{}]",
                                      "[[]]",
                                      "[null]",
                                      "\xff\xfe",
                                      "[{\"id\":",
                                      "::::",
                                      ",,,,:",
                                      "[1,2,3]",
                                      "[\"x\"]",
                                      "[{\"count\":1e999}]",
                                      "\"\\u0000\"",
                                      std::string("[{\"id\":\"a\0b\"}]", 14)};
  garbage.push_back(std::string(2000000, '['));
  garbage.push_back("[{\"custominfo\":" + std::string(2000000, '['));
  garbage.push_back("[" + std::string(200000, ' ') + "]");
  for (const std::string& g : garbage) {
    OneNode node({{d.register_annotation, g}});
    hami_device_sink sink{};
    sink.struct_size = sizeof sink;
    int devices = 0;
    sink.ctx = &devices;
    sink.device = &count_device;
    sink.pair_score = &ignore_pair;
    Err e;
    const hami_status s = inst.vt().decode_node(inst.get(), &node.node, &sink, e.get());
    const std::string shown = printable(g, 24);
    c.expect(s == HAMI_OK || s == HAMI_INVALID_ARGUMENT,
             "decode_node of the registration " + shown + " gave " + status_text(s));
    c.expect(s == HAMI_OK || !e.message().empty(),
             "decode_node refused " + shown + " without a message");
  }
  OneNode none({});
  hami_device_sink sink{sizeof(hami_device_sink), nullptr, &ignore_device, &ignore_pair};
  Err e;
  c.expect(inst.vt().decode_node(inst.get(), &none.node, &sink, e.get()) == HAMI_NOT_FOUND,
           "decode_node of a node without the registration annotation is not HAMI_NOT_FOUND");
}

void device_garbage_allocations(const PluginUnderTest& p, CheckContext& c) {
  const auto opened = open_default(p, c);
  if (!opened) {
    return;
  }
  const Instance& inst = *opened;
  hami_allocation_sink sink{sizeof(hami_allocation_sink), nullptr, &ignore_container,
                            &ignore_alloc};
  const std::vector<std::string> garbage = {",",
                                            "a,b",
                                            "a,b,c:",
                                            ";;;;a,b,c,d:;",
                                            "a,b,x,y:",
                                            "\xff,\xfe,1,2",
                                            std::string(50000, ';'),
                                            std::string(50000, ',')};
  for (const std::string& g : garbage) {
    Err e;
    const hami_status s = inst.vt().decode_allocation(inst.get(), hs(g), &sink, e.get());
    c.expect(s == HAMI_OK || s == HAMI_INVALID_ARGUMENT,
             "decode_allocation of " + printable(g, 20) + " gave " + status_text(s));
  }
}

void device_allocation_round_trip(const PluginUnderTest& p, CheckContext& c) {
  const auto opened = open_default(p, c);
  if (!opened) {
    return;
  }
  const Instance& inst = *opened;
  const std::string id = "GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448";
  const std::string type = "Model X";
  hami_alloc_device dev{sizeof(hami_alloc_device), hs(id), hs(type), 4096, 30};
  const hami_container_alloc containers[3] = {{nullptr, 0}, {&dev, 1}, {nullptr, 0}};
  std::string value;
  Err e;
  if (!c.expect(inst.vt().encode_allocation(inst.get(), containers, 3, hami_sink{&value, &append},
                                            e.get()) == HAMI_OK,
                "encode_allocation failed: " + e.message())) {
    return;
  }
  struct Seen {
    int containers = 0;
    std::vector<std::pair<int, std::string>> devices;
    std::vector<std::pair<int64_t, int32_t>> sizes;
  } seen;
  hami_allocation_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &seen;
  sink.container = [](void* ctx) { ++static_cast<Seen*>(ctx)->containers; };
  sink.device = [](void* ctx, const hami_alloc_device* d) {
    auto* s = static_cast<Seen*>(ctx);
    s->devices.emplace_back(s->containers - 1, Text::text(d->id));
    s->sizes.emplace_back(d->memory_mib, d->cores);
  };
  if (!c.expect(inst.vt().decode_allocation(inst.get(), hs(value), &sink, e.get()) == HAMI_OK,
                "decode_allocation of its own " + printable(value) + " failed: " + e.message())) {
    return;
  }
  c.expect(seen.containers == 3,
           "'" + value + "' decodes to " + std::to_string(seen.containers) + " containers, not 3");
  if (c.expect(seen.devices.size() == 1u, "'" + value + "' decodes to " +
                                              std::to_string(seen.devices.size()) +
                                              " devices, not 1")) {
    c.expect(seen.devices[0] == std::pair<int, std::string>{1, id},
             "the device came back as '" + seen.devices[0].second + "' in container " +
                 std::to_string(seen.devices[0].first));
    c.expect(seen.sizes[0] == std::pair<int64_t, int32_t>{4096, 30},
             "memory/cores came back as " + std::to_string(seen.sizes[0].first) + "/" +
                 std::to_string(seen.sizes[0].second) + ", not 4096/30");
  }
}

void device_fit_without_devices(const PluginUnderTest& p, CheckContext& c) {
  const auto opened = open_default(p, c);
  if (!opened) {
    return;
  }
  const Instance& inst = *opened;
  OnePod pod({});
  hami_device_request req{sizeof(hami_device_request), 1, 100, 0, 10, 0};
  hami_fit_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod.pod;
  in.request = &req;
  hami_fit_pick pick{};
  hami_fit_output out{};
  out.struct_size = sizeof out;
  out.picks = &pick;
  out.picks_cap = 1;
  std::string reason;
  out.reason = hami_sink{&reason, &append};
  Err e;
  if (c.expect(inst.vt().fit(inst.get(), &in, &out, e.get()) == HAMI_OK,
               "fit on a node without devices failed: " + e.message())) {
    c.expect(out.fits == 0u && out.picks_len == 0u, "a request fits on a node without devices");
  }
}

void device_concurrent_calls(const PluginUnderTest& p, CheckContext& c) {
  if ((p.info().flags & HAMI_FLAG_CONCURRENT_SAFE) == 0) {
    c.skip("does not declare HAMI_FLAG_CONCURRENT_SAFE: the host serialises its calls");
    return;
  }
  Description d;
  const auto opened = open_default(p, c, &d);
  if (!opened) {
    return;
  }
  const Instance& inst = *opened;
  const std::string id0 = "GPU-0", id1 = "GPU-1", type = d.vendor + " Model";
  hami_device devs[2] = {};
  for (int i = 0; i < 2; ++i) {
    devs[i].struct_size = sizeof devs[i];
    devs[i].id = hs(i == 0 ? id0 : id1);
    devs[i].type = hs(type);
    devs[i].count = 10;
    devs[i].memory_mib = 16384;
    devs[i].cores = 100;
    devs[i].flags = HAMI_DEVICE_HEALTHY;
  }
  const hami_device_usage usage[2] = {{sizeof(hami_device_usage), &devs[0], 1, 8000, 50},
                                      {sizeof(hami_device_usage), &devs[1], 0, 0, 0}};
  OnePod pod({{d.count_resource, "1"}});
  OneNode node({{d.register_annotation,
                 "[{\"id\":\"GPU-0\",\"count\":10,\"devmem\":16384,"
                 "\"devcore\":100,\"type\":\"" +
                     type + "\",\"health\":true}]"}});
  struct Snapshot {
    uint32_t fits = 0;
    size_t pick = 99;
    int64_t memory = 0;
    int devices = 0;
    int32_t count = 0;
    uint32_t healthy = 0;
    hami_status decoded = HAMI_OK;
    bool operator==(const Snapshot&) const = default;
  };
  const auto run_once = [&](Snapshot& s) -> bool {
    Err e;
    hami_device_request req{};
    req.struct_size = sizeof req;
    if (inst.vt().container_request(inst.get(), &pod.pod, 0, &req, e.get()) != HAMI_OK) {
      return false;
    }
    s.count = req.count;
    req.memory_mib = 4000;
    req.cores = 30;
    hami_fit_input in{};
    in.struct_size = sizeof in;
    in.pod = &pod.pod;
    in.request = &req;
    in.devices = usage;
    in.devices_len = 2;
    hami_fit_pick pick{};
    hami_fit_output out{};
    out.struct_size = sizeof out;
    out.picks = &pick;
    out.picks_cap = 1;
    std::string reason;
    out.reason = hami_sink{&reason, &append};
    if (inst.vt().fit(inst.get(), &in, &out, e.get()) != HAMI_OK) {
      return false;
    }
    s.fits = out.fits;
    s.pick = pick.device;
    s.memory = pick.memory_mib;
    hami_device_sink dsink{sizeof(hami_device_sink), &s.devices, &count_device, &ignore_pair};
    s.devices = 0;
    // The registration is JSON; a vendor that registers in another form
    // refuses it, and must refuse it the same way on every thread.
    s.decoded = inst.vt().decode_node(inst.get(), &node.node, &dsink, e.get());
    hami_health_result h{};
    h.struct_size = sizeof h;
    hami_annotation_sink asink{sizeof(hami_annotation_sink), nullptr, &ignore_set, &ignore_remove};
    if (inst.vt().node_health(inst.get(), &node.node, 1767225600, &h, &asink, e.get()) != HAMI_OK) {
      return false;
    }
    s.healthy = h.healthy;
    return true;
  };
  Snapshot expected;
  if (!c.expect(run_once(expected),
                "a single caller's request/fit/decode/health sequence failed")) {
    return;
  }
  constexpr int kThreads = 4;
  constexpr int kRounds = 300;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        Snapshot s;
        if (!run_once(s) || !(s == expected)) {
          ++mismatches;
        }
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  c.expect(mismatches.load() == 0, std::to_string(mismatches.load()) + " of " +
                                       std::to_string(kThreads * kRounds) +
                                       " concurrent rounds differed from a single caller's");
}

const Check kDevice[] = {
    {"device-vtable", "the device vtable has every 1.0 function", HAMI_KIND_DEVICE, &device_vtable},
    {"device-empty-section", "its schema and create accept {} (no device-config section)",
     HAMI_KIND_DEVICE, &device_empty_section},
    {"device-bad-config", "bad configs are refused with a message, truncated at capacity",
     HAMI_KIND_DEVICE, &device_bad_config},
    {"device-describe", "describe names the vendor, resources and annotations", HAMI_KIND_DEVICE,
     &device_describe},
    {"device-no-resources", "containers without its resources are left alone", HAMI_KIND_DEVICE,
     &device_no_resources},
    {"device-garbage-registrations", "garbage node registrations are errors, never crashes",
     HAMI_KIND_DEVICE, &device_garbage_registrations},
    {"device-garbage-allocations", "garbage allocation annotations are errors, never crashes",
     HAMI_KIND_DEVICE, &device_garbage_allocations},
    {"device-allocation-round-trip", "an encoded allocation decodes to the same devices",
     HAMI_KIND_DEVICE, &device_allocation_round_trip},
    {"device-fit-without-devices", "nothing fits on a node without devices", HAMI_KIND_DEVICE,
     &device_fit_without_devices},
    {"device-concurrent-calls", "concurrent calls agree with a single caller (when declared safe)",
     HAMI_KIND_DEVICE, &device_concurrent_calls},
};

}  // namespace

std::span<const Check> device_checks() {
  return kDevice;
}

}  // namespace hami::conformance
