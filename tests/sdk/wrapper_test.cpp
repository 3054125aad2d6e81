// The header-only C++ wrapper: error-buffer truncation, the exception
// barrier, struct-size handling, negotiation and the trampolines of every
// kind, exercised through the vtables the export macros would publish.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "hami/admission.hpp"
#include "hami/device.hpp"
#include "hami/scheduling.hpp"
#include "hami/struct_sizes.hpp"

namespace hami::test {
namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------------------
// Vocabulary helpers
// ---------------------------------------------------------------------------

TEST(WriteError, CapZeroWritesNothing) {
  char buf[4] = {'a', 'b', 'c', 'd'};
  hami::write_error(hami_errbuf{buf, 0}, "xyz");
  EXPECT_EQ(std::string(buf, 4), "abcd");
  hami::write_error(hami_errbuf{nullptr, 0}, "xyz");  // no buffer at all: no crash
}

TEST(WriteError, CapOneWritesOnlyTheTerminator) {
  char buf[4] = {'a', 'b', 'c', 'd'};
  hami::write_error(hami_errbuf{buf, 1}, "xyz");
  EXPECT_EQ(buf[0], '\0');
  EXPECT_EQ(std::string(buf + 1, 3), "bcd");
}

TEST(WriteError, TruncatesAtCapMinusOne) {
  char buf[6] = {'-', '-', '-', '-', '-', '-'};
  hami::write_error(hami_errbuf{buf, 4}, "abcdef");
  EXPECT_STREQ(buf, "abc");
  EXPECT_EQ(buf[4], '-');
  EXPECT_EQ(buf[5], '-');
}

TEST(WriteError, ShortMessageIsTerminated) {
  char buf[8];
  std::memset(buf, '-', sizeof buf);
  hami::write_error(hami_errbuf{buf, sizeof buf}, "ok");
  EXPECT_STREQ(buf, "ok");
  hami::write_error(hami_errbuf{buf, sizeof buf}, "");
  EXPECT_STREQ(buf, "");
}

TEST(Strings, ViewsAndBackAgain) {
  EXPECT_TRUE(hami::to_sv(hami_str{nullptr, 0}).empty());
  const hami_str s = hami::to_str("hello");
  EXPECT_EQ(s.len, 5u);
  EXPECT_EQ(hami::to_sv(s), "hello");
}

void collect(void* ctx, const char* bytes, size_t len) {
  static_cast<std::vector<std::string>*>(ctx)->emplace_back(bytes, len);
}

TEST(SinkAppend, SendsNonEmptyTextOnly) {
  std::vector<std::string> calls;
  const hami_sink sink{&calls, &collect};
  hami::sink_append(sink, "abc");
  hami::sink_append(sink, "");
  EXPECT_THAT(calls, ::testing::ElementsAre("abc"));
  hami::sink_append(hami_sink{nullptr, nullptr}, "ignored");  // no function: no crash
}

// ---------------------------------------------------------------------------
// The exception barrier
// ---------------------------------------------------------------------------

struct Barrier {
  std::array<char, 256> buf{};
  hami_errbuf err() { return hami_errbuf{buf.data(), buf.size()}; }
  std::string message() const { return buf.data(); }
};

TEST(Guard, VoidBodyIsOk) {
  Barrier b;
  EXPECT_EQ(hami::detail::guard(b.err(), [] {}), HAMI_OK);
  EXPECT_EQ(b.message(), "");
}

TEST(Guard, StatusBodyIsPassedThrough) {
  Barrier b;
  EXPECT_EQ(hami::detail::guard(b.err(), [] { return HAMI_NOT_FOUND; }), HAMI_NOT_FOUND);
}

TEST(Guard, HamiErrorKeepsItsStatus) {
  Barrier b;
  EXPECT_EQ(
      hami::detail::guard(b.err(), [] { throw hami::Error(HAMI_INVALID_ARGUMENT, "bad percent"); }),
      HAMI_INVALID_ARGUMENT);
  EXPECT_EQ(b.message(), "bad percent");
}

TEST(Guard, HamiErrorWithOkIsInternal) {
  Barrier b;
  EXPECT_EQ(hami::detail::guard(b.err(), [] { throw hami::Error(HAMI_OK, "oops"); }),
            HAMI_INTERNAL);
}

TEST(Guard, BadAllocIsResourceExhausted) {
  Barrier b;
  EXPECT_EQ(hami::detail::guard(b.err(), [] { throw std::bad_alloc(); }), HAMI_RESOURCE_EXHAUSTED);
  EXPECT_EQ(b.message(), "out of memory (std::bad_alloc)");
}

TEST(Guard, StdExceptionIsInternalWithWhat) {
  Barrier b;
  EXPECT_EQ(hami::detail::guard(b.err(), [] { throw std::out_of_range("index 9"); }),
            HAMI_INTERNAL);
  EXPECT_EQ(b.message(), "index 9");
}

TEST(Guard, AnythingElseIsInternalUnknownException) {
  Barrier b;
  EXPECT_EQ(hami::detail::guard(b.err(), [] { throw 42; }), HAMI_INTERNAL);
  EXPECT_EQ(b.message(), "unknown exception");
}

TEST(Guard, ErrbufCapZeroStillReportsTheStatus) {
  EXPECT_EQ(hami::detail::guard(hami_errbuf{nullptr, 0}, [] { throw std::runtime_error("x"); }),
            HAMI_INTERNAL);
}

// ---------------------------------------------------------------------------
// Struct sizes
// ---------------------------------------------------------------------------

TEST(StructSizes, FloorIsTheEndOfTheLastMember) {
  EXPECT_EQ(hami::v1_0_size<hami_device_description>,
            offsetof(hami_device_description, memory_factor) + sizeof(int32_t));
  // 1.1 appended three calls, 1.2 one: the floor stays at 1.0's last one.
  EXPECT_EQ(hami::v1_0_size<hami_device_vtable>,
            offsetof(hami_device_vtable, decode_allocation) + sizeof(void*));
  EXPECT_EQ(sizeof(hami_device_vtable), hami::v1_0_size<hami_device_vtable> + 4 * sizeof(void*));
  // 1.2 appended two terms to the node usage a policy scores.
  EXPECT_EQ(sizeof(hami_node_usage), hami::v1_0_size<hami_node_usage> + 2 * sizeof(double));
  EXPECT_STREQ(hami::struct_abi<hami_fit_input>::name, "hami_fit_input");
}

TEST(StructSizes, RequireRefusesNullAndUndersized) {
  hami_health_result r{};
  r.struct_size = 4;
  try {
    (void)hami::detail::require(&r, "out");
    FAIL() << "expected hami::Error";
  } catch (const hami::Error& e) {
    EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
    EXPECT_THAT(e.what(), HasSubstr("hami_health_result.struct_size 4 is smaller than ABI 1.0's"));
  }
  EXPECT_THROW((void)hami::detail::require(static_cast<const hami_health_result*>(nullptr), "x"),
               hami::Error);
}

TEST(StructSizes, WriteStructStopsAtTheHostsStructSize) {
  // A host that knows only the 1.0 members: nothing past them may change.
  std::array<unsigned char, sizeof(hami_device_description) + 16> storage;
  storage.fill(0xCD);
  auto* out = reinterpret_cast<hami_device_description*>(storage.data());
  const auto floor = static_cast<uint32_t>(hami::v1_0_size<hami_device_description>);
  out->struct_size = floor;

  hami_device_description value{};
  std::memset(static_cast<void*>(&value), 0x11, sizeof value);
  value.struct_size = static_cast<uint32_t>(sizeof value);
  hami::detail::write_struct(out, value);

  EXPECT_EQ(out->struct_size, floor);
  EXPECT_EQ(out->memory_factor, value.memory_factor);
  for (size_t i = floor; i < storage.size(); ++i) {
    EXPECT_EQ(storage[i], 0xCD) << "byte " << i << " beyond struct_size was written";
  }
}

TEST(StructSizes, ReadStructZeroExtendsWhatTheHostDidNotSend) {
  std::array<unsigned char, sizeof(hami_device_description)> storage;
  storage.fill(0xEE);
  auto* in = reinterpret_cast<hami_device_description*>(storage.data());
  in->struct_size = static_cast<uint32_t>(hami::v1_0_size<hami_device_description>);
  const auto copy = hami::detail::read_struct(in, "in");
  EXPECT_EQ(copy.struct_size, sizeof copy);
  const auto* bytes = reinterpret_cast<const unsigned char*>(&copy);
  for (size_t i = hami::v1_0_size<hami_device_description>; i < sizeof copy; ++i) {
    EXPECT_EQ(bytes[i], 0) << "byte " << i;
  }
}

// ---------------------------------------------------------------------------
// Host services as a plugin sees them
// ---------------------------------------------------------------------------

struct FakeHost {
  std::vector<std::string> lines;
  int64_t now = 77;
  static void log_fn(void* ctx, int32_t level, hami_str message) {
    static_cast<FakeHost*>(ctx)->lines.push_back(std::to_string(level) + ":" +
                                                 std::string(hami::to_sv(message)));
  }
  static int64_t now_fn(void* ctx) { return static_cast<FakeHost*>(ctx)->now; }
  hami_host_api api{static_cast<uint32_t>(sizeof(hami_host_api)), &log_fn, &now_fn};
  hami_host_info info() {
    hami_host_info i{};
    i.struct_size = sizeof i;
    i.abi_major = HAMI_ABI_MAJOR;
    i.abi_minor = HAMI_ABI_MINOR;
    i.host = &api;
    i.host_ctx = this;
    i.host_version = hami::to_str("9.9.9");
    return i;
  }
};

TEST(Host, ForwardsLogsAndClock) {
  FakeHost fake;
  const hami::Host host(fake.info());
  host.warn("careful");
  EXPECT_THAT(fake.lines, ::testing::ElementsAre("2:careful"));
  EXPECT_EQ(host.now_unix(), 77);
  fake.now = 78;
  EXPECT_EQ(host.now_unix(), 78);
  EXPECT_EQ(host.version(), "9.9.9");
}

TEST(Host, WithoutAHostTableLogsNowhereAndUsesTheSystemClock) {
  const hami::Host host;
  host.error("dropped");
  EXPECT_GT(host.now_unix(), 1'600'000'000);
}

TEST(Host, RefusesAnUndersizedHostInfo) {
  FakeHost fake;
  hami_host_info info = fake.info();
  info.struct_size = 8;
  EXPECT_THROW(hami::Host{info}, hami::Error);
}

// ---------------------------------------------------------------------------
// Negotiation
// ---------------------------------------------------------------------------

int g_dummy_vtable = 0;

hami_status negotiate(const hami_host_info* in, hami_plugin_info* out, hami_errbuf err) {
  return hami::detail::negotiate(in, out, err, HAMI_KIND_SCHEDULING, "probe", "1.2.3",
                                 "a test plugin", "{\"type\": \"object\"}",
                                 HAMI_FLAG_CONCURRENT_SAFE, &g_dummy_vtable);
}

TEST(Negotiate, FillsThePluginInfo) {
  FakeHost fake;
  const hami_host_info host = fake.info();
  hami_plugin_info out{};
  out.struct_size = sizeof out;
  Barrier b;
  ASSERT_EQ(negotiate(&host, &out, b.err()), HAMI_OK) << b.message();
  EXPECT_EQ(out.struct_size, sizeof out);
  EXPECT_EQ(out.abi_major, HAMI_ABI_MAJOR);
  EXPECT_EQ(out.abi_minor, HAMI_ABI_MINOR);
  EXPECT_EQ(out.kind, HAMI_KIND_SCHEDULING);
  EXPECT_EQ(out.flags, HAMI_FLAG_CONCURRENT_SAFE);
  EXPECT_EQ(hami::to_sv(out.name), "probe");
  EXPECT_EQ(hami::to_sv(out.version), "1.2.3");
  EXPECT_EQ(hami::to_sv(out.description), "a test plugin");
  EXPECT_EQ(hami::to_sv(out.config_schema), "{\"type\": \"object\"}");
  EXPECT_EQ(out.vtable, &g_dummy_vtable);
}

TEST(Negotiate, ReportsItsVersionToAHostOfAnotherMajor) {
  FakeHost fake;
  hami_host_info host = fake.info();
  host.abi_major = 2;
  host.abi_minor = 3;
  hami_plugin_info out{};
  out.struct_size = sizeof out;
  Barrier b;
  EXPECT_EQ(negotiate(&host, &out, b.err()), HAMI_FAILED_PRECONDITION);
  EXPECT_EQ(out.abi_major, HAMI_ABI_MAJOR);
  EXPECT_EQ(b.message(), "plugin is built for hami ABI 1.2, host offers 2.3");
  EXPECT_EQ(out.vtable, nullptr);
}

TEST(Negotiate, RefusesMissingOrTinyStructs) {
  FakeHost fake;
  const hami_host_info host = fake.info();
  Barrier b;
  EXPECT_EQ(negotiate(&host, nullptr, b.err()), HAMI_INVALID_ARGUMENT);

  // Only the version prefix fits: it is written, nothing else is.
  std::array<unsigned char, sizeof(hami_plugin_info)> storage;
  storage.fill(0xAA);
  auto* out = reinterpret_cast<hami_plugin_info*>(storage.data());
  out->struct_size = 8;
  EXPECT_EQ(negotiate(&host, out, b.err()), HAMI_INVALID_ARGUMENT);
  EXPECT_EQ(out->abi_major, HAMI_ABI_MAJOR);
  for (size_t i = 8; i < storage.size(); ++i) {
    EXPECT_EQ(storage[i], 0xAA) << "byte " << i;
  }
  hami_plugin_info fine{};
  fine.struct_size = sizeof fine;
  EXPECT_EQ(negotiate(nullptr, &fine, b.err()), HAMI_INVALID_ARGUMENT);
}

// ---------------------------------------------------------------------------
// Device trampolines
// ---------------------------------------------------------------------------

int g_live_devices = 0;

class TestDevice final : public hami::DevicePlugin {
 public:
  TestDevice(const hami_host_info& host, std::string_view config) : host_(host) {
    if (config == "bad_alloc") {
      throw std::bad_alloc();
    }
    if (config == "throw") {
      throw std::invalid_argument("config says throw");
    }
    ++g_live_devices;
  }
  ~TestDevice() override { --g_live_devices; }

  void describe(hami_device_description& out) override {
    out.vendor = hami::to_str("TEST");
    out.count_resource = hami::to_str("example.com/test");
    out.memory_factor = 2;
  }
  bool mutate_container(const hami_pod_view& pod, size_t idx,
                        const hami_container_mutation_sink& out) override {
    hami::set_limit(out, "example.com/test", "1");
    if (hami::to_sv(pod.containers[idx].name) == "runtime") {
      hami::set_runtime_class(out, "test");
    }
    return true;
  }
  hami_device_request container_request(const hami_pod_view& pod, size_t idx) override {
    if (hami::to_sv(pod.containers[idx].name) == "bad") {
      throw hami::Error(HAMI_INVALID_ARGUMENT, "example.com/test: not a number");
    }
    hami_device_request r{};
    r.count = 1;
    r.memory_mib = 100;
    return r;
  }
  void decode_node(const hami_node_view&, const hami_device_sink&) override {
    throw hami::Error(HAMI_NOT_FOUND, "no registration");
  }
  hami_health_result node_health(const hami_node_view&, int64_t now,
                                 const hami_annotation_sink& writes) override {
    hami::set_annotation(writes, "k", std::to_string(now));
    hami_health_result r{};
    r.healthy = 1;
    return r;
  }
  void fit(const hami_fit_input& in, hami_fit_output& out) override {
    if (in.request->count > 5) {
      out.picks_len = out.picks_cap + 1;  // a bug the trampoline must catch
      return;
    }
    out.picks[0] = hami_fit_pick{0, hami::to_str("TEST"), 10, 0};
    out.picks_len = 1;
    out.fits = 1;
  }
  void encode_allocation(std::span<const hami_container_alloc> containers,
                         const hami_sink& out) override {
    hami::sink_append(out, std::to_string(containers.size()));
  }
  void decode_allocation(std::string_view, const hami_allocation_sink& out) override {
    hami::open_container(out);
  }

 private:
  hami::Host host_;
};

using DeviceVt = hami::detail::DeviceAdapter<TestDevice>;

class DeviceTrampolines : public ::testing::Test {
 protected:
  void SetUp() override {
    const hami_host_info info = fake_.info();
    ASSERT_EQ(vt().create(&info, hami::to_str("{}"), &instance_, b_.err()), HAMI_OK);
    ASSERT_NE(instance_, nullptr);
  }
  void TearDown() override { vt().destroy(instance_); }
  static const hami_device_vtable& vt() { return DeviceVt::vtable; }

  FakeHost fake_;
  Barrier b_;
  hami_instance* instance_ = nullptr;
};

TEST_F(DeviceTrampolines, VtableIsComplete) {
  EXPECT_EQ(vt().struct_size, sizeof(hami_device_vtable));
  EXPECT_NE(vt().node_cleanup, nullptr);
  EXPECT_EQ(g_live_devices, 1);
}

TEST_F(DeviceTrampolines, AllocationFailureInCreateIsResourceExhausted) {
  const hami_host_info info = fake_.info();
  hami_instance* out = reinterpret_cast<hami_instance*>(&fake_);
  EXPECT_EQ(vt().create(&info, hami::to_str("bad_alloc"), &out, b_.err()), HAMI_RESOURCE_EXHAUSTED);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(vt().create(&info, hami::to_str("throw"), &out, b_.err()), HAMI_INTERNAL);
  EXPECT_EQ(b_.message(), "config says throw");
  EXPECT_EQ(vt().create(nullptr, hami::to_str("{}"), &out, b_.err()), HAMI_INVALID_ARGUMENT);
  EXPECT_EQ(g_live_devices, 1);
}

TEST_F(DeviceTrampolines, DestroyNullIsANoOp) {
  vt().destroy(nullptr);
  EXPECT_EQ(g_live_devices, 1);
}

TEST_F(DeviceTrampolines, NullInstanceIsInvalidArgument) {
  hami_device_description out{};
  out.struct_size = sizeof out;
  EXPECT_EQ(vt().describe(nullptr, &out, b_.err()), HAMI_INVALID_ARGUMENT);
  EXPECT_EQ(b_.message(), "instance is NULL");
}

TEST_F(DeviceTrampolines, DescribeChecksTheOutStruct) {
  hami_device_description out{};
  out.struct_size = sizeof out;
  ASSERT_EQ(vt().describe(instance_, &out, b_.err()), HAMI_OK);
  EXPECT_EQ(hami::to_sv(out.vendor), "TEST");
  EXPECT_EQ(out.memory_factor, 2);
  out.struct_size = 12;
  EXPECT_EQ(vt().describe(instance_, &out, b_.err()), HAMI_INVALID_ARGUMENT);
  EXPECT_THAT(b_.message(), HasSubstr("hami_device_description.struct_size 12"));
}

struct MutationLog {
  std::vector<std::string> calls;
  static MutationLog& of(void* ctx) { return *static_cast<MutationLog*>(ctx); }
  static void limit(void* ctx, hami_str r, hami_str q) {
    of(ctx).calls.push_back("limit " + std::string(hami::to_sv(r)) + "=" +
                            std::string(hami::to_sv(q)));
  }
  static void env(void*, hami_str, hami_str) {}
};

TEST(MutationSink, Abi11CallsReachA11HostAndAreSkippedOnA10One) {
  std::vector<std::string> calls;
  hami_container_mutation_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &calls;
  sink.set_request = [](void* ctx, hami_str r, hami_str q) {
    static_cast<std::vector<std::string>*>(ctx)->push_back(
        "request " + std::string(hami::to_sv(r)) + "=" + std::string(hami::to_sv(q)));
  };
  sink.set_pod_annotation = [](void* ctx, hami_str k, hami_str v) {
    static_cast<std::vector<std::string>*>(ctx)->push_back(
        "annotation " + std::string(hami::to_sv(k)) + "=" + std::string(hami::to_sv(v)));
  };
  EXPECT_TRUE(hami::set_request(sink, "example.com/mem", "4Gi"));
  EXPECT_TRUE(hami::set_pod_annotation(sink, "example.com/n", "1"));
  EXPECT_EQ(calls, (std::vector<std::string>{"request example.com/mem=4Gi",
                                             "annotation example.com/n=1"}));
  // A 1.0 host's sink ends after set_runtime_class: nothing is called.
  sink.struct_size = static_cast<uint32_t>(hami::v1_0_size<hami_container_mutation_sink>);
  EXPECT_FALSE(hami::set_request(sink, "example.com/mem", "4Gi"));
  EXPECT_FALSE(hami::set_pod_annotation(sink, "example.com/n", "1"));
  EXPECT_EQ(calls.size(), 2u);
  // A 1.1 sink with the member NULL is a host bug the helper reports.
  sink.struct_size = sizeof sink;
  sink.set_request = nullptr;
  EXPECT_THROW(hami::set_request(sink, "example.com/mem", "4Gi"), hami::Error);
}

TEST_F(DeviceTrampolines, MutateContainer) {
  const std::array<hami_container_view, 2> containers{
      hami_container_view{sizeof(hami_container_view), hami::to_str("main"), 0, 0, nullptr, 0,
                          nullptr, 0, nullptr, 0},
      hami_container_view{sizeof(hami_container_view), hami::to_str("runtime"), 0, 0, nullptr, 0,
                          nullptr, 0, nullptr, 0}};
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  pod.containers = containers.data();
  pod.containers_len = containers.size();
  MutationLog log;
  // A host sink without set_runtime_class: the helper reports it.
  const hami_container_mutation_sink sink{sizeof(hami_container_mutation_sink),
                                          &log,
                                          &MutationLog::limit,
                                          &MutationLog::env,
                                          nullptr,
                                          nullptr,
                                          nullptr};
  uint32_t uses = 7;
  ASSERT_EQ(vt().mutate_container(instance_, &pod, 0, &sink, &uses, b_.err()), HAMI_OK);
  EXPECT_EQ(uses, 1u);
  EXPECT_THAT(log.calls, ::testing::ElementsAre("limit example.com/test=1"));

  EXPECT_EQ(vt().mutate_container(instance_, &pod, 1, &sink, &uses, b_.err()),
            HAMI_FAILED_PRECONDITION);
  EXPECT_EQ(b_.message(), "host's hami_container_mutation_sink has no set_runtime_class function");

  EXPECT_EQ(vt().mutate_container(instance_, &pod, 2, &sink, &uses, b_.err()),
            HAMI_INVALID_ARGUMENT);
  EXPECT_EQ(b_.message(), "container index 2 out of range (pod has 2 containers)");
  EXPECT_EQ(uses, 0u);
}

TEST_F(DeviceTrampolines, ContainerRequestIsZeroedOnError) {
  const std::array<hami_container_view, 2> containers{
      hami_container_view{sizeof(hami_container_view), hami::to_str("main"), 0, 0, nullptr, 0,
                          nullptr, 0, nullptr, 0},
      hami_container_view{sizeof(hami_container_view), hami::to_str("bad"), 0, 0, nullptr, 0,
                          nullptr, 0, nullptr, 0}};
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  pod.containers = containers.data();
  pod.containers_len = containers.size();
  hami_device_request out{sizeof(hami_device_request), 9, 9, 9, 9, 0};
  ASSERT_EQ(vt().container_request(instance_, &pod, 0, &out, b_.err()), HAMI_OK);
  EXPECT_EQ(out.count, 1);
  EXPECT_EQ(out.memory_mib, 100);
  EXPECT_EQ(out.cores, 0);

  out = hami_device_request{sizeof(hami_device_request), 9, 9, 9, 9, 0};
  EXPECT_EQ(vt().container_request(instance_, &pod, 1, &out, b_.err()), HAMI_INVALID_ARGUMENT);
  EXPECT_EQ(b_.message(), "example.com/test: not a number");
  EXPECT_EQ(out.struct_size, sizeof out);
  EXPECT_EQ(out.count, 0);
  EXPECT_EQ(out.memory_mib, 0);
}

TEST_F(DeviceTrampolines, HamiErrorStatusReachesTheHost) {
  hami_node_view node{};
  node.struct_size = sizeof node;
  const hami_device_sink sink{sizeof(hami_device_sink), nullptr, nullptr, nullptr};
  EXPECT_EQ(vt().decode_node(instance_, &node, &sink, b_.err()), HAMI_NOT_FOUND);
  EXPECT_EQ(b_.message(), "no registration");
  node.struct_size = 0;
  EXPECT_EQ(vt().decode_node(instance_, &node, &sink, b_.err()), HAMI_INVALID_ARGUMENT);
}

TEST_F(DeviceTrampolines, FitCopiesOutputAndCatchesOverflow) {
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  hami_device device{};
  device.struct_size = sizeof device;
  const hami_device_usage usage{sizeof(hami_device_usage), &device, 0, 0, 0};
  hami_device_request request{sizeof(hami_device_request), 1, 10, 0, 0, 0};
  hami_fit_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod;
  in.request = &request;
  in.devices = &usage;
  in.devices_len = 1;
  std::array<hami_fit_pick, 1> picks{};
  hami_fit_output out{};
  out.struct_size = sizeof out;
  out.picks = picks.data();
  out.picks_cap = picks.size();
  ASSERT_EQ(vt().fit(instance_, &in, &out, b_.err()), HAMI_OK) << b_.message();
  EXPECT_EQ(out.fits, 1u);
  EXPECT_EQ(out.picks_len, 1u);
  EXPECT_EQ(out.picks, picks.data());
  EXPECT_EQ(picks[0].memory_mib, 10);

  request.count = 6;
  EXPECT_EQ(vt().fit(instance_, &in, &out, b_.err()), HAMI_INTERNAL);
  EXPECT_EQ(b_.message(), "fit reported more picks than picks_cap");
}

TEST_F(DeviceTrampolines, NodeHealthAndAllocations) {
  hami_node_view node{};
  node.struct_size = sizeof node;
  std::vector<std::string> sets;
  const hami_annotation_sink writes{
      sizeof(hami_annotation_sink), &sets,
      [](void* ctx, hami_str key, hami_str value) {
        static_cast<std::vector<std::string>*>(ctx)->push_back(std::string(hami::to_sv(key)) + "=" +
                                                               std::string(hami::to_sv(value)));
      },
      nullptr};
  hami_health_result health{};
  health.struct_size = sizeof health;
  ASSERT_EQ(vt().node_health(instance_, &node, 5, &health, &writes, b_.err()), HAMI_OK);
  EXPECT_EQ(health.healthy, 1u);
  EXPECT_THAT(sets, ::testing::ElementsAre("k=5"));

  std::vector<std::string> text;
  const std::array<hami_container_alloc, 3> containers{};
  ASSERT_EQ(vt().encode_allocation(instance_, containers.data(), containers.size(),
                                   hami_sink{&text, &collect}, b_.err()),
            HAMI_OK);
  EXPECT_THAT(text, ::testing::ElementsAre("3"));
  EXPECT_EQ(vt().encode_allocation(instance_, nullptr, 2, hami_sink{&text, &collect}, b_.err()),
            HAMI_INVALID_ARGUMENT);

  int segments = 0;
  const hami_allocation_sink alloc{sizeof(hami_allocation_sink), &segments,
                                   [](void* ctx) { ++*static_cast<int*>(ctx); }, nullptr};
  ASSERT_EQ(vt().decode_allocation(instance_, hami::to_str("x"), &alloc, b_.err()), HAMI_OK);
  EXPECT_EQ(segments, 1);
}

// ---------------------------------------------------------------------------
// Admission and scheduling trampolines
// ---------------------------------------------------------------------------

class TestAdmission final : public hami::AdmissionPolicy {
 public:
  TestAdmission(const hami_host_info&, std::string_view) {}
  void review(const hami_admission_input& in, hami_admission_output& out) override {
    bool managed = false;
    const hami::HostReply defaults = hami::apply_device_defaults(in, managed);
    if (!defaults.ok()) {
      out.verdict = HAMI_ADMIT_DENY;
      hami::set_message(out, defaults.message);
      return;
    }
    std::string label;
    const hami_status label_status = hami::namespace_label(in, "team", label);
    out.verdict = managed ? HAMI_ADMIT_ALLOW : HAMI_ADMIT_SKIP;
    hami::set_message(out, label_status == HAMI_OK ? label : "no label");
    hami::set_scheduler_name(out, hami::to_sv(in.scheduler_name));
  }
};

struct AdmissionHostFake {
  bool fail = false;
  static hami_status defaults(void* ctx, uint32_t* uses, hami_errbuf err) {
    if (static_cast<AdmissionHostFake*>(ctx)->fail) {
      hami::write_error(err, "bad percentage");
      return HAMI_INVALID_ARGUMENT;
    }
    *uses = 1;
    return HAMI_OK;
  }
  static hami_status label(void*, hami_str, hami_sink value) {
    hami::sink_append(value, "gpu-team");
    return HAMI_OK;
  }
};

TEST(AdmissionTrampoline, ReviewUsesHostServicesAndSinks) {
  using Vt = hami::detail::AdmissionAdapter<TestAdmission>;
  FakeHost fake;
  const hami_host_info info = fake.info();
  Barrier b;
  hami_instance* instance = nullptr;
  ASSERT_EQ(Vt::vtable.create(&info, hami::to_str("{}"), &instance, b.err()), HAMI_OK);

  AdmissionHostFake host_fake;
  const hami_admission_host host{sizeof(hami_admission_host), &host_fake,
                                 &AdmissionHostFake::defaults, nullptr, &AdmissionHostFake::label};
  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  const hami_admission_input in{sizeof(hami_admission_input), &pod, hami::to_str("hami"), 0, &host};
  std::vector<std::string> message, scheduler;
  hami_admission_output out{};
  out.struct_size = sizeof out;
  out.message = hami_sink{&message, &collect};
  out.scheduler_name = hami_sink{&scheduler, &collect};
  ASSERT_EQ(Vt::vtable.review(instance, &in, &out, b.err()), HAMI_OK) << b.message();
  EXPECT_EQ(out.verdict, HAMI_ADMIT_ALLOW);
  EXPECT_THAT(message, ::testing::ElementsAre("gpu-team"));
  EXPECT_THAT(scheduler, ::testing::ElementsAre("hami"));

  host_fake.fail = true;
  message.clear();
  ASSERT_EQ(Vt::vtable.review(instance, &in, &out, b.err()), HAMI_OK);
  EXPECT_EQ(out.verdict, HAMI_ADMIT_DENY);
  EXPECT_THAT(message, ::testing::ElementsAre("bad percentage"));

  // A host without check_quota: the helper says so instead of crashing.
  const hami::HostReply quota = hami::check_quota(in);
  EXPECT_EQ(quota.status, HAMI_UNIMPLEMENTED);
  Vt::vtable.destroy(instance);
}

class TestPolicy final : public hami::SchedulingPolicy {
 public:
  TestPolicy(const hami_host_info&, std::string_view) {}
  void describe(hami_policy_description& out) override {
    out.node_policies = hami::to_str("binpack");
  }
  double score_node(std::string_view policy, const hami_pod_view&,
                    const hami_node_usage& node) override {
    return policy == "binpack" ? static_cast<double>(node.used) : 0.0;
  }
};

TEST(SchedulingTrampoline, ScoreAndDefaultOrder) {
  using Vt = hami::detail::SchedulingAdapter<TestPolicy>;
  FakeHost fake;
  const hami_host_info info = fake.info();
  Barrier b;
  hami_instance* instance = nullptr;
  ASSERT_EQ(Vt::vtable.create(&info, hami::to_str("{}"), &instance, b.err()), HAMI_OK);

  hami_policy_description names{};
  names.struct_size = sizeof names;
  ASSERT_EQ(Vt::vtable.describe(instance, &names, b.err()), HAMI_OK);
  EXPECT_EQ(hami::to_sv(names.node_policies), "binpack");

  hami_pod_view pod{};
  pod.struct_size = sizeof pod;
  hami_node_usage usage{};
  usage.struct_size = sizeof usage;
  usage.used = 42;
  double score = -1;
  ASSERT_EQ(Vt::vtable.score_node(instance, hami::to_str("binpack"), &pod, &usage, &score, b.err()),
            HAMI_OK);
  EXPECT_EQ(score, 42.0);
  EXPECT_EQ(
      Vt::vtable.score_node(instance, hami::to_str("binpack"), &pod, &usage, nullptr, b.err()),
      HAMI_INVALID_ARGUMENT);

  hami_order_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod;
  hami_order_output out{};
  out.struct_size = sizeof out;
  EXPECT_EQ(Vt::vtable.order_devices(instance, &in, &out, b.err()), HAMI_UNIMPLEMENTED);
  EXPECT_EQ(b.message(), "order_devices is not implemented by this plugin");
  Vt::vtable.destroy(instance);
}

}  // namespace
}  // namespace hami::test
