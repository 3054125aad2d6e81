// Device plugin conformance: every device plugin the build produces
// (hami::conformance::built_plugins(HAMI_KIND_DEVICE)) is checked against the
// contract of sdk/include/hami/device.h at the raw C level, as any host would
// call it: a complete device vtable, an empty config accepted, bad configs
// refused with a message, garbage annotations answered with errors (never a
// crash or an internal error), no-resource containers left alone, an
// allocation round trip, and concurrent calls for plugins that declare them
// safe. The generic checks every kind shares (negotiation, destroy(NULL),
// error-buffer capacities 0 and 1) live in plugin_conformance_test.cpp.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
// GCC 12 at -O2/-O3 reports a null dereference inside RapidJSON's schema
// validator teardown after inlining (a false positive in the library).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <rapidjson/schema.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "conformance.hpp"
#include "hami/device.h"

namespace hami::conformance {
namespace {

std::string text(hami_str s) {
  return s.ptr == nullptr ? std::string() : std::string(s.ptr, s.len);
}
hami_str hs(const std::string& s) {
  return hami_str{s.data(), s.size()};
}

void discard_log(void*, int32_t, hami_str) {}
int64_t fixed_clock(void*) {
  return 1767225600;
}
const hami_host_api kApi{sizeof(hami_host_api), &discard_log, &fixed_clock};
const hami_host_info kHost{
    sizeof(hami_host_info),     HAMI_ABI_MAJOR, HAMI_ABI_MINOR, &kApi, nullptr,
    hami_str{"conformance", 11}};

// One opened library; stays mapped for the whole test program.
struct Library {
  std::string file;
  void* handle = nullptr;
  hami_plugin_negotiate_t* entry = nullptr;
  hami_plugin_info info{};
  const hami_device_vtable* vtable = nullptr;
};

// Each library is opened once for the whole program and stays mapped.
const Library& open_library(const BuiltPlugin& plugin) {
  static std::map<std::string, std::unique_ptr<Library>> cache;
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  auto& slot = cache[plugin.path().string()];
  if (!slot) {
    slot = std::make_unique<Library>();
    slot->file = plugin.path().string();
    slot->handle = dlopen(slot->file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (slot->handle != nullptr) {
      slot->entry =
          reinterpret_cast<hami_plugin_negotiate_t*>(dlsym(slot->handle, HAMI_PLUGIN_ENTRY_POINT));
    }
    if (slot->entry != nullptr) {
      slot->info.struct_size = sizeof slot->info;
      char buf[256] = {};
      if (slot->entry(&kHost, &slot->info, hami_errbuf{buf, sizeof buf}) == HAMI_OK &&
          slot->info.kind == HAMI_KIND_DEVICE) {
        slot->vtable = static_cast<const hami_device_vtable*>(slot->info.vtable);
      }
    }
  }
  return *slot;
}

struct Err {
  char buf[4096];
  Err() { std::memset(buf, 0x7f, sizeof buf); }
  hami_errbuf get() { return hami_errbuf{buf, sizeof buf}; }
  std::string message() const { return std::string(buf, strnlen(buf, sizeof buf)); }
};

// An instance made with the `{}` config (every device plugin must accept an
// empty section and run on a machine without its hardware).
class Instance {
 public:
  explicit Instance(const Library& lib, const std::string& config = "{}") : vt_(*lib.vtable) {
    Err e;
    status_ = vt_.create(&kHost, hs(config), &instance_, e.get());
    message_ = e.message();
  }
  ~Instance() {
    if (status_ == HAMI_OK)
      vt_.destroy(instance_);
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  hami_status status() const { return status_; }
  const std::string& message() const { return message_; }
  hami_instance* get() const { return instance_; }
  const hami_device_vtable& vt() const { return vt_; }

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

Description describe(const Instance& inst) {
  hami_device_description d{};
  d.struct_size = sizeof d;
  Err e;
  EXPECT_EQ(inst.vt().describe(inst.get(), &d, e.get()), HAMI_OK) << e.message();
  return Description{text(d.vendor), text(d.count_resource), text(d.register_annotation),
                     text(d.allocated_annotation), d.memory_factor};
}

// A pod with one container whose limits are `limits`.
struct OnePod {
  std::vector<std::pair<std::string, std::string>> limit_text;
  std::vector<hami_kv> limits;
  hami_container_view container{};
  hami_pod_view pod{};
  explicit OnePod(std::vector<std::pair<std::string, std::string>> l) : limit_text(std::move(l)) {
    for (const auto& [k, v] : limit_text)
      limits.push_back(hami_kv{hs(k), hs(v)});
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
};

struct OneNode {
  std::vector<std::pair<std::string, std::string>> annotation_text;
  std::vector<hami_kv> annotations;
  hami_node_view node{};
  explicit OneNode(std::vector<std::pair<std::string, std::string>> a)
      : annotation_text(std::move(a)) {
    for (const auto& [k, v] : annotation_text)
      annotations.push_back(hami_kv{hs(k), hs(v)});
    node.struct_size = sizeof node;
    node.name = hami_str{"node-1", 6};
    node.annotations = annotations.data();
    node.annotations_len = annotations.size();
  }
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

class DeviceConformance : public ::testing::TestWithParam<BuiltPlugin> {
 protected:
  void SetUp() override {
    lib_ = &open_library(GetParam());
    ASSERT_NE(lib_->handle, nullptr) << GetParam().path() << ": " << dlerror();
    ASSERT_NE(lib_->vtable, nullptr)
        << GetParam().path() << " did not negotiate as a device plugin";
  }
  const Library& lib() const { return *lib_; }

 private:
  const Library* lib_ = nullptr;
};

TEST(DeviceConformanceSetup, TheVendorPluginsAreBuilt) {
  // nvidia.so and amd.so are part of every build; without them this suite
  // would check nothing.
  std::vector<std::string> files;
  for (const BuiltPlugin& p : built_plugins(HAMI_KIND_DEVICE))
    files.push_back(p.file);
  EXPECT_NE(std::find(files.begin(), files.end(), "nvidia.so"), files.end());
  EXPECT_NE(std::find(files.begin(), files.end(), "amd.so"), files.end());
}

TEST_P(DeviceConformance, DeviceVtableIsComplete) {
  EXPECT_EQ(lib().info.kind, HAMI_KIND_DEVICE);
  const hami_device_vtable& vt = *lib().vtable;
  EXPECT_GE(vt.struct_size, offsetof(hami_device_vtable, decode_allocation) + sizeof(void*));
  EXPECT_NE(vt.create, nullptr);
  EXPECT_NE(vt.destroy, nullptr);
  EXPECT_NE(vt.describe, nullptr);
  EXPECT_NE(vt.mutate_container, nullptr);
  EXPECT_NE(vt.container_request, nullptr);
  EXPECT_NE(vt.decode_node, nullptr);
  EXPECT_NE(vt.node_health, nullptr);
  EXPECT_NE(vt.fit, nullptr);
  EXPECT_NE(vt.encode_allocation, nullptr);
  EXPECT_NE(vt.decode_allocation, nullptr);
}

TEST_P(DeviceConformance, SchemaIsDraft4JsonAcceptingAnEmptySection) {
  const std::string schema = text(lib().info.config_schema);
  ASSERT_FALSE(schema.empty()) << "device plugins declare their config schema";
  rapidjson::Document doc;
  doc.Parse(schema.data(), schema.size());
  ASSERT_FALSE(doc.HasParseError()) << "schema is not JSON";
  ASSERT_TRUE(doc.IsObject());
  const rapidjson::SchemaDocument compiled(doc);
  rapidjson::Document empty;
  empty.Parse("{}");
  rapidjson::SchemaValidator validator(compiled);
  EXPECT_TRUE(empty.Accept(validator)) << "the schema rejects {}";
  const Instance inst(lib());
  EXPECT_EQ(inst.status(), HAMI_OK) << inst.message();
}

TEST_P(DeviceConformance, BadConfigIsRejectedWithAMessage) {
  for (const std::string bad : {"{", "[]", "not json", "\"text\""}) {
    const Instance inst(lib(), bad);
    EXPECT_NE(inst.status(), HAMI_OK) << bad;
    EXPECT_NE(inst.status(), HAMI_INTERNAL) << bad << ": " << inst.message();
    EXPECT_FALSE(inst.message().empty()) << bad;
  }
}

// A long message is cut at cap - 1 bytes and terminated (the generic suite
// checks capacities 0 and 1).
TEST_P(DeviceConformance, ErrorMessagesAreTruncatedAtCapacity) {
  hami_instance* out = nullptr;
  char eight[9];
  std::memset(eight, 'x', sizeof eight);
  EXPECT_NE(lib().vtable->create(&kHost, hami_str{"{", 1}, &out, hami_errbuf{eight, 8}), HAMI_OK);
  EXPECT_EQ(strnlen(eight, 8), 7u);
  EXPECT_EQ(eight[8], 'x');
}

TEST_P(DeviceConformance, DescribesItsVendor) {
  const Instance inst(lib());
  ASSERT_EQ(inst.status(), HAMI_OK) << inst.message();
  const Description d = describe(inst);
  EXPECT_FALSE(d.vendor.empty());
  EXPECT_FALSE(d.count_resource.empty());
  EXPECT_FALSE(d.register_annotation.empty());
  EXPECT_FALSE(d.allocated_annotation.empty());
  EXPECT_GE(d.memory_factor, 1);
}

TEST_P(DeviceConformance, ContainersWithoutResourcesAreLeftAlone) {
  const Instance inst(lib());
  ASSERT_EQ(inst.status(), HAMI_OK);
  const Description d = describe(inst);
  OnePod empty({});
  hami_container_mutation_sink sink{};
  sink.struct_size = sizeof sink;
  int calls = 0;
  sink.ctx = &calls;
  sink.set_limit = [](void* c, hami_str, hami_str) { ++*static_cast<int*>(c); };
  sink.add_env = [](void*, hami_str, hami_str) {};
  sink.set_runtime_class = [](void* c, hami_str) { ++*static_cast<int*>(c); };
  uint32_t uses = 7;
  Err e;
  ASSERT_EQ(inst.vt().mutate_container(inst.get(), &empty.pod, 0, &sink, &uses, e.get()), HAMI_OK)
      << e.message();
  EXPECT_EQ(uses, 0u);
  EXPECT_EQ(calls, 0);
  hami_device_request r{};
  r.struct_size = sizeof r;
  r.count = 99;
  ASSERT_EQ(inst.vt().container_request(inst.get(), &empty.pod, 0, &r, e.get()), HAMI_OK);
  EXPECT_EQ(r.count, 0);

  OnePod one({{d.count_resource, "1"}});
  ASSERT_EQ(inst.vt().container_request(inst.get(), &one.pod, 0, &r, e.get()), HAMI_OK)
      << e.message();
  EXPECT_EQ(r.count, 1);
  // An index past the containers is an input error, not a crash.
  EXPECT_EQ(inst.vt().container_request(inst.get(), &one.pod, 5, &r, e.get()),
            HAMI_INVALID_ARGUMENT);
}

// Garbage in the registration annotation is an error (or no devices), never
// a crash and never an internal error.
TEST_P(DeviceConformance, GarbageRegistrationsAreErrors) {
  const Instance inst(lib());
  ASSERT_EQ(inst.status(), HAMI_OK);
  const Description d = describe(inst);
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
  // Nesting deeper than any stack, inside a value the decoder skips.
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
    EXPECT_TRUE(s == HAMI_OK || s == HAMI_INVALID_ARGUMENT)
        << "status " << s << " for garbage of " << g.size() << " bytes";
    if (s != HAMI_OK) {
      EXPECT_FALSE(e.message().empty());
    }
  }
  OneNode none({});
  hami_device_sink sink{sizeof(hami_device_sink), nullptr, &ignore_device, &ignore_pair};
  Err e;
  EXPECT_EQ(inst.vt().decode_node(inst.get(), &none.node, &sink, e.get()), HAMI_NOT_FOUND);
}

TEST_P(DeviceConformance, GarbageAllocationsAreErrors) {
  const Instance inst(lib());
  ASSERT_EQ(inst.status(), HAMI_OK);
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
    EXPECT_TRUE(s == HAMI_OK || s == HAMI_INVALID_ARGUMENT)
        << "status " << s << " for " << g.substr(0, 20);
  }
}

TEST_P(DeviceConformance, AllocationRoundTrip) {
  const Instance inst(lib());
  ASSERT_EQ(inst.status(), HAMI_OK);
  const std::string id = "GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448";
  const std::string type = "Model X";
  hami_alloc_device dev{sizeof(hami_alloc_device), hs(id), hs(type), 4096, 30};
  const hami_container_alloc containers[3] = {{nullptr, 0}, {&dev, 1}, {nullptr, 0}};
  std::string value;
  Err e;
  ASSERT_EQ(
      inst.vt().encode_allocation(inst.get(), containers, 3, hami_sink{&value, &append}, e.get()),
      HAMI_OK)
      << e.message();
  struct Seen {
    int containers = 0;
    std::vector<std::pair<int, std::string>> devices;
  } seen;
  hami_allocation_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &seen;
  sink.container = [](void* c) { ++static_cast<Seen*>(c)->containers; };
  sink.device = [](void* c, const hami_alloc_device* d) {
    auto* s = static_cast<Seen*>(c);
    s->devices.emplace_back(s->containers - 1, text(d->id));
    EXPECT_EQ(d->memory_mib, 4096);
    EXPECT_EQ(d->cores, 30);
  };
  ASSERT_EQ(inst.vt().decode_allocation(inst.get(), hs(value), &sink, e.get()), HAMI_OK)
      << e.message();
  EXPECT_EQ(seen.containers, 3) << value;
  ASSERT_EQ(seen.devices.size(), 1u);
  EXPECT_EQ(seen.devices[0], (std::pair<int, std::string>{1, id}));
}

TEST_P(DeviceConformance, FitWithoutDevicesDoesNotFit) {
  const Instance inst(lib());
  ASSERT_EQ(inst.status(), HAMI_OK);
  OnePod pod({});
  hami_device_request req{sizeof(hami_device_request), 1, 100, 0, 10};
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
  ASSERT_EQ(inst.vt().fit(inst.get(), &in, &out, e.get()), HAMI_OK) << e.message();
  EXPECT_EQ(out.fits, 0u);
  EXPECT_EQ(out.picks_len, 0u);
}

// Plugins that declare HAMI_FLAG_CONCURRENT_SAFE are called from many
// threads at once on one instance; every thread must see the same results a
// single caller sees.
TEST_P(DeviceConformance, ConcurrentCallsWhenDeclaredSafe) {
  if ((lib().info.flags & HAMI_FLAG_CONCURRENT_SAFE) == 0) {
    GTEST_SKIP() << text(lib().info.name) << " does not declare concurrent calls safe";
  }
  const Instance inst(lib());
  ASSERT_EQ(inst.status(), HAMI_OK);
  const Description d = describe(inst);

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
  };
  const auto run_once = [&](Snapshot& s) -> bool {
    Err e;
    hami_device_request req{};
    req.struct_size = sizeof req;
    if (inst.vt().container_request(inst.get(), &pod.pod, 0, &req, e.get()) != HAMI_OK)
      return false;
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
    if (inst.vt().fit(inst.get(), &in, &out, e.get()) != HAMI_OK)
      return false;
    s.fits = out.fits;
    s.pick = pick.device;
    s.memory = pick.memory_mib;
    hami_device_sink dsink{sizeof(hami_device_sink), &s.devices, &count_device, &ignore_pair};
    s.devices = 0;
    if (inst.vt().decode_node(inst.get(), &node.node, &dsink, e.get()) != HAMI_OK)
      return false;
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
  ASSERT_TRUE(run_once(expected));
  constexpr int kThreads = 4;
  constexpr int kRounds = 300;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        Snapshot s;
        if (!run_once(s) || s.fits != expected.fits || s.pick != expected.pick ||
            s.memory != expected.memory || s.devices != expected.devices ||
            s.count != expected.count || s.healthy != expected.healthy) {
          ++mismatches;
        }
      }
    });
  }
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Built, DeviceConformance,
                         ::testing::ValuesIn(built_plugins(HAMI_KIND_DEVICE)),
                         [](const ::testing::TestParamInfo<BuiltPlugin>& p) {
                           return test_name(p.param);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DeviceConformance);

}  // namespace
}  // namespace hami::conformance
