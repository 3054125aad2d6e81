// ascend.so through its ABI: describe, configuration, admission and
// requests. HAMi reference §1.1, §1.2, §1.4 and the cases of
// pkg/device/ascend/device_test.go (Test_InitDevices, Test_MutateAdmission*,
// Test_GenerateResourceRequests*) with HAMi's expected values, plus the
// decisions on §1.9a (X13), §1.9b (X9) and §1.9d.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device_under_test.hpp"
#include "k8s_views.hpp"
#include "request_run.hpp"

namespace hami::testing {
namespace {

constexpr const char* k910ACount = "huawei.com/Ascend910A";
constexpr const char* k910AMem = "huawei.com/Ascend910A-memory";
constexpr const char* k910B3Count = "huawei.com/Ascend910B3";
constexpr const char* k910B3Mem = "huawei.com/Ascend910B3-memory";
constexpr const char* k910B3Core = "huawei.com/Ascend910B3-core";
constexpr const char* k910CCount = "huawei.com/Ascend910C";
constexpr const char* k910CMem = "huawei.com/Ascend910C-memory";

// HAMi's test configs.
constexpr const char* k910A = R"({"commonWord": "Ascend910A", "chipName": "910A",
  "resourceName": "huawei.com/Ascend910A", "resourceMemoryName": "huawei.com/Ascend910A-memory",
  "memoryAllocatable": 32768, "memoryCapacity": 32768, "aiCore": 30,
  "templates": [{"name": "vir02", "memory": 2184, "aiCore": 2},
                {"name": "vir04", "memory": 4369, "aiCore": 4},
                {"name": "vir08", "memory": 8738, "aiCore": 8},
                {"name": "vir16", "memory": 17476, "aiCore": 16}]})";
// Test_MutateAdmission_VNPUCoreMode: 910B3 without templates, 32768 MiB.
constexpr const char* k910B3NoTemplates = R"({"commonWord": "Ascend910B3",
  "memoryAllocatable": 32768, "memoryCapacity": 32768, "templates": []})";

// The pod's only container "c1" through mutate_container.
ContainerMutation mutate(const DeviceUnderTest& dut, Pairs limits, Pairs requests = {},
                         Pairs annotations = {}, Pairs env = {}) {
  PodFixture pod;
  for (auto& [k, v] : annotations)
    pod.annotation(k, v);
  pod.container({"c1", false, std::move(limits), std::move(requests), std::move(env)});
  return dut.plugin().mutate_container(pod.view(), 0);
}

// The denial text of mutate_container, "" when it accepts.
std::string denial(const DeviceUnderTest& dut, Pairs limits, Pairs requests = {},
                   Pairs annotations = {}) {
  try {
    static_cast<void>(mutate(dut, std::move(limits), std::move(requests), std::move(annotations)));
    return "";
  } catch (const CallError& e) {
    EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
    return e.what();
  }
}

std::string denied(const std::string& message) {
  return "ascend.mutate_container: " + message;
}

TEST(AscendDescribe, InitDevicesNamesEverythingAfterTheVendorWord) {
  const DeviceUnderTest dut("ascend", k910A);
  const DeviceDescription& d = dut.plugin().description();
  EXPECT_EQ(d.vendor, "Ascend910A");
  EXPECT_EQ(d.count_resource, "huawei.com/Ascend910A");
  EXPECT_EQ(d.memory_resource, "huawei.com/Ascend910A-memory");
  EXPECT_EQ(d.cores_resource, "huawei.com/Ascend910A-core");
  EXPECT_EQ(d.register_annotation, "hami.io/node-register-Ascend910A");
  EXPECT_EQ(d.handshake_annotation, "hami.io/node-handshake-Ascend910A");
  EXPECT_EQ(d.to_allocate_annotation, "hami.io/Ascend910A-devices-to-allocate");
  EXPECT_EQ(d.allocated_annotation, "hami.io/Ascend910A-devices-allocated");
  EXPECT_EQ(d.memory_factor, 1);
  EXPECT_EQ(d.cores_unit, HAMI_CORES_PERCENT);
  EXPECT_EQ(d.allocation_annotations,
            (std::vector<std::string>{"huawei.com/Ascend910A", "predicate-time"}));
  EXPECT_EQ(d.node_lock, HAMI_NODE_LOCK_SHARED);
  EXPECT_TRUE(dut.plugin().scores_placements());
}

TEST(AscendConfig, EmptyConfigIsTheChartsFirstEntry) {
  const DeviceUnderTest dut("ascend");
  EXPECT_EQ(dut.plugin().description().vendor, "Ascend910A");
  // Chart defaults: 32768 MiB whole card, templates up to vir16.
  EXPECT_EQ(mutate(dut, {{k910ACount, "1"}}).limits, (Pairs{{k910AMem, "32768"}}));
  EXPECT_EQ(mutate(dut, {{k910ACount, "1"}, {k910AMem, "8000"}}).limits,
            (Pairs{{k910AMem, "8738"}}));
}

TEST(AscendConfig, ChartWordsTakeTheirChartEntry) {
  const DeviceUnderTest b3("ascend", R"({"commonWord": "Ascend910B3"})");
  EXPECT_EQ(b3.plugin().description().count_resource, k910B3Count);
  // Reference §1.2's 910B3 examples.
  EXPECT_EQ(mutate(b3, {{k910B3Count, "1"}, {k910B3Mem, "15360"}}).limits,
            (Pairs{{k910B3Mem, "16384"}}));
  EXPECT_EQ(mutate(b3, {{k910B3Count, "1"}, {k910B3Mem, "20000"}}).limits,
            (Pairs{{k910B3Mem, "32768"}}));
  EXPECT_EQ(mutate(b3, {{k910B3Count, "1"}, {k910B3Mem, "40000"}}).limits,
            (Pairs{{k910B3Mem, "65536"}}));
  EXPECT_EQ(denial(b3, {{k910B3Count, "1"}, {k910B3Mem, "70000"}}),
            denied("huawei.com/Ascend910B3-memory 70000 is invalid"));
  EXPECT_EQ(denial(b3, {{k910B3Count, "2"}, {k910B3Mem, "16384"}}),
            denied("vNPU not supported for multiple devices"));
  EXPECT_EQ(mutate(b3, {{k910B3Count, "2"}}).limits, (Pairs{{k910B3Mem, "65536"}}));
  const DeviceUnderTest p310("ascend", R"({"commonWord": "Ascend310P"})");
  // 310P: 21527 allocatable, 24576 capacity.
  EXPECT_EQ(
      mutate(p310, {{"huawei.com/Ascend310P", "1"}, {"huawei.com/Ascend310P-memory", "20000"}})
          .limits,
      (Pairs{{"huawei.com/Ascend310P-memory", "21527"}}));
  const DeviceUnderTest c("ascend", R"({"commonWord": "Ascend910C"})");
  EXPECT_EQ(c.plugin().description().memory_factor, 1) << "910C leaves memoryFactor out (0)";
}

// The chart's seven `vnpus.configs` elements (HAMi's device-configmap.yaml
// with the default values), in JSON.
const std::vector<std::string> kChartElements = {
    R"json({"chipName":"910A","commonWord":"Ascend910A","resourceName":"huawei.com/Ascend910A","resourceMemoryName":"huawei.com/Ascend910A-memory","resourceCoreName":"huawei.com/Ascend910A-core","memoryAllocatable":32768,"memoryCapacity":32768,"memoryFactor":1,"aiCore":30,"runtimeClassName":"","overwriteEnv":false,"templates":[{"name":"vir02","memory":2184,"aiCore":2},{"name":"vir04","memory":4369,"aiCore":4},{"name":"vir08","memory":8738,"aiCore":8},{"name":"vir16","memory":17476,"aiCore":16}]})json",
    R"json({"chipName":"910B2","commonWord":"Ascend910B2","resourceName":"huawei.com/Ascend910B2","resourceMemoryName":"huawei.com/Ascend910B2-memory","resourceCoreName":"huawei.com/Ascend910B2-core","memoryAllocatable":65536,"memoryCapacity":65536,"memoryFactor":1,"aiCore":24,"aiCPU":6,"runtimeClassName":"","overwriteEnv":false,"templates":[{"name":"vir03_1c_8g","memory":8192,"aiCore":3,"aiCPU":1},{"name":"vir06_1c_16g","memory":16384,"aiCore":6,"aiCPU":1},{"name":"vir12_3c_32g","memory":32768,"aiCore":12,"aiCPU":3}]})json",
    R"json({"chipName":"910B3","commonWord":"Ascend910B3","resourceName":"huawei.com/Ascend910B3","resourceMemoryName":"huawei.com/Ascend910B3-memory","resourceCoreName":"huawei.com/Ascend910B3-core","memoryAllocatable":65536,"memoryCapacity":65536,"memoryFactor":1,"aiCore":20,"aiCPU":7,"runtimeClassName":"","overwriteEnv":false,"templates":[{"name":"vir05_1c_16g","memory":16384,"aiCore":5,"aiCPU":1},{"name":"vir10_3c_32g","memory":32768,"aiCore":10,"aiCPU":3}]})json",
    R"json({"chipName":"910B4-1","commonWord":"Ascend910B4-1","resourceName":"huawei.com/Ascend910B4-1","resourceMemoryName":"huawei.com/Ascend910B4-1-memory","resourceCoreName":"huawei.com/Ascend910B4-1-core","memoryAllocatable":65536,"memoryCapacity":65536,"memoryFactor":1,"aiCore":20,"aiCPU":7,"runtimeClassName":"","overwriteEnv":false,"templates":[{"name":"vir05_1c_16g","memory":16384,"aiCore":5,"aiCPU":1},{"name":"vir10_3c_32g","memory":32768,"aiCore":10,"aiCPU":3}]})json",
    R"json({"chipName":"910B4","commonWord":"Ascend910B4","resourceName":"huawei.com/Ascend910B4","resourceMemoryName":"huawei.com/Ascend910B4-memory","resourceCoreName":"huawei.com/Ascend910B4-core","memoryAllocatable":32768,"memoryCapacity":32768,"memoryFactor":1,"aiCore":20,"aiCPU":7,"runtimeClassName":"","overwriteEnv":false,"templates":[{"name":"vir05_1c_8g","memory":8192,"aiCore":5,"aiCPU":1},{"name":"vir10_3c_16g","memory":16384,"aiCore":10,"aiCPU":3}]})json",
    R"json({"chipName":"310P3","commonWord":"Ascend310P","resourceName":"huawei.com/Ascend310P","resourceMemoryName":"huawei.com/Ascend310P-memory","resourceCoreName":"huawei.com/Ascend310P-core","memoryAllocatable":21527,"memoryCapacity":24576,"memoryFactor":1,"aiCore":8,"aiCPU":7,"runtimeClassName":"","overwriteEnv":false,"templates":[{"name":"vir01","memory":3072,"aiCore":1,"aiCPU":1},{"name":"vir02","memory":6144,"aiCore":2,"aiCPU":2},{"name":"vir04","memory":12288,"aiCore":4,"aiCPU":4}]})json",
    R"json({"chipName":"Ascend910","commonWord":"Ascend910C","resourceName":"huawei.com/Ascend910C","resourceMemoryName":"huawei.com/Ascend910C-memory","resourceCoreName":"huawei.com/Ascend910C-core","memoryAllocatable":65536,"memoryCapacity":65536,"aiCore":20,"aiCPU":7,"runtimeClassName":"","overwriteEnv":false,"superPod":true,"templates":[{"name":"vir05_1c_16g","memory":16384,"aiCore":5,"aiCPU":1},{"name":"vir10_3c_32g","memory":32768,"aiCore":10,"aiCPU":3}]})json",
};

TEST(AscendConfig, ChartElementsAreAcceptedAndEqualTheirDefaults) {
  for (const std::string& element : kChartElements) {
    SCOPED_TRACE(element);
    const DeviceUnderTest explicit_dut("ascend", element);
    const DeviceDescription& d = explicit_dut.plugin().description();
    const DeviceUnderTest defaults("ascend", R"({"commonWord": ")" + d.vendor + R"("})");
    const DeviceDescription& e = defaults.plugin().description();
    EXPECT_EQ(d.count_resource, e.count_resource);
    EXPECT_EQ(d.memory_resource, e.memory_resource);
    EXPECT_EQ(d.cores_resource, e.cores_resource);
    EXPECT_EQ(d.memory_factor, e.memory_factor);
    for (const char* mem :
         {"0", "3000", "8000", "10000", "17000", "20000", "30000", "40000", "65536", "70000"}) {
      for (const char* count : {"1", "2"}) {
        const Pairs limits = {{d.count_resource, count}, {d.memory_resource, mem}};
        std::string a;
        std::string b;
        try {
          const ContainerMutation m = mutate(explicit_dut, limits);
          for (const auto& [k, v] : m.limits)
            a += k + "=" + v + ";";
        } catch (const CallError& err) {
          a = err.what();
        }
        try {
          const ContainerMutation m = mutate(defaults, limits);
          for (const auto& [k, v] : m.limits)
            b += k + "=" + v + ";";
        } catch (const CallError& err) {
          b = err.what();
        }
        EXPECT_EQ(a, b) << mem << " × " << count;
      }
    }
  }
}

TEST(AscendConfig, TemplatesAreSortedByMemory) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910A", "templates": [
      {"name": "big", "memory": 16000}, {"name": "small", "memory": 4000}]})");
  EXPECT_EQ(mutate(dut, {{k910ACount, "1"}, {k910AMem, "3000"}}).limits,
            (Pairs{{k910AMem, "4000"}}));
}

TEST(AscendConfig, SchemaAndRequiredValues) {
  EXPECT_THROW(DeviceUnderTest("ascend", R"({"commonWord": ""})"), host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("ascend", R"({"commonWord": "a/b"})"), host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("ascend", R"({"memoryAllocatable": "32768"})"),
               host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("ascend", R"({"templates": [{"name": "x"}]})"),
               host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("ascend", R"({"hamiVnpuCore": "yes"})"), host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("ascend", R"([{"commonWord": "Ascend910A"}])"),
               host::PluginLoadError);
  // A word the chart does not know has no whole-card size to default to.
  EXPECT_THROW(DeviceUnderTest("ascend", R"({"commonWord": "Ascend950"})"), host::PluginLoadError);
  const DeviceUnderTest own("ascend", R"({"commonWord": "Ascend950", "memoryAllocatable": 1024})");
  EXPECT_EQ(own.plugin().description().count_resource, "huawei.com/Ascend950");
  EXPECT_EQ(
      mutate(own, {{"huawei.com/Ascend950", "1"}, {"huawei.com/Ascend950-memory", "1000"}}).limits,
      (Pairs{{"huawei.com/Ascend950-memory", "1024"}}));
}

TEST(AscendAdmission, MutateAdmission) {
  const DeviceUnderTest dut("ascend", k910A);
  EXPECT_FALSE(mutate(dut, {}).uses_device);
  // HAMi returns true together with the error; the webhook denies either way.
  EXPECT_EQ(denial(dut, {{k910ACount, "2"}, {k910AMem, "8738"}}),
            denied("vNPU not supported for multiple devices"));
  EXPECT_EQ(denial(dut, {{k910ACount, "2"}, {k910AMem, "40000"}}),
            denied("huawei.com/Ascend910A-memory 40000 is invalid"));
  const ContainerMutation m = mutate(dut, {{k910ACount, "1"}, {k910AMem, "20000"}},
                                     {{k910ACount, "1"}, {k910AMem, "20000"}});
  EXPECT_TRUE(m.uses_device);
  EXPECT_EQ(m.limits, (Pairs{{k910AMem, "32768"}}));
  EXPECT_EQ(m.requests, (Pairs{{k910AMem, "32768"}}));
  EXPECT_TRUE(m.env.empty());
  EXPECT_FALSE(m.runtime_class.has_value());
}

TEST(AscendAdmission, MutateAdmissionNilRequests) {
  const DeviceUnderTest dut("ascend", k910A);
  ContainerMutation m = mutate(dut, {{k910ACount, "1"}, {k910AMem, "8738"}});
  EXPECT_EQ(m.requests, (Pairs{{k910AMem, "8738"}}));
  m = mutate(dut, {{k910ACount, "1"}});
  EXPECT_EQ(m.requests, (Pairs{{k910AMem, "32768"}}));
}

TEST(AscendAdmission, MutateAdmission910C) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C", "superPod": true})");
  ContainerMutation m = mutate(dut, {{k910CCount, "1"}}, {{k910CCount, "1"}});
  EXPECT_TRUE(m.uses_device);
  EXPECT_EQ(m.limits, (Pairs{{k910CCount, "2"}, {k910CMem, "65536"}}));
  EXPECT_EQ(m.requests, (Pairs{{k910CCount, "2"}, {k910CMem, "65536"}}));
  m = mutate(dut, {{k910CCount, "1"}});
  EXPECT_EQ(m.requests, (Pairs{{k910CMem, "65536"}})) << "requests without the count stay so";
  EXPECT_EQ(denial(dut, {{k910CCount, "3"}}),
            denied("Ascend910C device request must be 1 or 2*n, got 3"));
  m = mutate(dut, {{k910CCount, "4"}});
  EXPECT_TRUE(m.uses_device);
  EXPECT_EQ(m.limits, (Pairs{{k910CMem, "65536"}}));
}

TEST(AscendAdmission, MutateAdmission910CVnpuSplit) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C", "superPod": false})");
  ContainerMutation m = mutate(dut, {{k910CCount, "1"}, {k910CMem, "16384"}});
  EXPECT_TRUE(m.uses_device);
  EXPECT_EQ(m.limits, (Pairs{{k910CMem, "16384"}}));
  m = mutate(dut, {{k910CCount, "3"}});
  EXPECT_TRUE(m.uses_device);
  EXPECT_EQ(m.limits, (Pairs{{k910CMem, "65536"}}));
}

TEST(AscendAdmission, X9_OneCardSliceOnSuperPod910CBecomesTwoSlicedNpus_Kept) {
  // §1.9b kept: the multi-device check reads the count before the 1→2
  // rewrite, as examples/ascend/job-910C.yaml expects.
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C", "superPod": true})");
  const ContainerMutation m = mutate(dut, {{k910CCount, "1"}, {k910CMem, "16384"}});
  EXPECT_TRUE(m.uses_device);
  EXPECT_EQ(m.limits, (Pairs{{k910CCount, "2"}, {k910CMem, "16384"}}));
  // Asked for 2 directly, the same slice is refused.
  EXPECT_EQ(denial(dut, {{k910CCount, "2"}, {k910CMem, "16384"}}),
            denied("vNPU not supported for multiple devices"));
}

TEST(AscendAdmission, MutateAdmissionVnpuCoreMode) {
  const DeviceUnderTest dut("ascend", k910B3NoTemplates);
  const Pairs soft = {{"huawei.com/vnpu-mode", "hami-core"}};
  ContainerMutation m =
      mutate(dut, {{k910B3Count, "1"}, {k910B3Mem, "15360"}, {k910B3Core, "20"}}, {}, soft);
  EXPECT_TRUE(m.uses_device);
  EXPECT_EQ(m.limits, (Pairs{{k910B3Mem, "15360"}})) << "soft split keeps memory and core";
  EXPECT_TRUE(m.env.empty());
  m = mutate(dut, {{k910B3Count, "1"}, {k910B3Mem, "15360"}});
  EXPECT_EQ(m.limits, (Pairs{{k910B3Mem, "32768"}}));
  // Soft split memory is rounded up to whole MiB.
  m = mutate(dut, {{k910B3Count, "1"}, {k910B3Mem, "1500m"}}, {}, soft);
  EXPECT_EQ(m.limits, (Pairs{{k910B3Mem, "2"}}));
}

TEST(AscendAdmission, MutateAdmissionHardSplitCoreRejected) {
  const DeviceUnderTest dut("ascend", k910B3NoTemplates);
  const std::string rejected =
      denied("huawei.com/Ascend910B3-core is only supported in hami-core (soft split) mode");
  EXPECT_EQ(denial(dut, {{k910B3Count, "1"}, {k910B3Core, "10"}}), rejected);
  EXPECT_EQ(denial(dut, {{k910B3Count, "1"}, {k910B3Core, "25"}}), rejected);
  EXPECT_EQ(denial(dut, {{k910B3Count, "1"}}, {{k910B3Core, "25"}}), rejected)
      << "the core is read from the requests when the limits lack it";
  EXPECT_EQ(denial(dut, {{k910B3Count, "1"}, {k910B3Core, "0"}}), "");
  EXPECT_EQ(denial(dut, {{k910B3Count, "1"}}), "");
  EXPECT_EQ(denial(dut, {{k910B3Count, "1"}, {k910B3Core, "10"}}, {},
                   {{"huawei.com/vnpu-mode", "hami-core"}}),
            "");
  // Without a configured core resource there is nothing to reject.
  const DeviceUnderTest no_core("ascend",
                                R"({"commonWord": "Ascend910B3", "resourceCoreName": ""})");
  EXPECT_EQ(denial(no_core, {{k910B3Count, "1"}, {k910B3Core, "10"}}), "");
}

TEST(AscendAdmission, RuntimeClassFromTheEntry) {
  const DeviceUnderTest dut("ascend", R"({"runtimeClassName": "ascend"})");
  EXPECT_EQ(mutate(dut, {{k910ACount, "1"}}).runtime_class, "ascend");
  EXPECT_FALSE(mutate(dut, {}).runtime_class.has_value());
}

TEST(AscendAdmission, CountOnlyInRequestsIsNotAdmitted) {
  const DeviceUnderTest dut("ascend", k910A);
  const ContainerMutation m = mutate(dut, {}, {{k910ACount, "1"}});
  EXPECT_FALSE(m.uses_device);
  EXPECT_TRUE(m.limits.empty());
}

TEST(AscendAdmission, X13_EmptyVisibleDevicesOnlyForContainersWithoutAscend) {
  // §1.9a fixed: HAMi adds ASCEND_VISIBLE_DEVICES="" from every entry whose
  // count a container lacks, also to containers using another chip.
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910A", "overwriteEnv": true})");
  ContainerMutation m = mutate(dut, {{"cpu", "1"}});
  EXPECT_FALSE(m.uses_device);
  EXPECT_EQ(m.env, (Pairs{{"ASCEND_VISIBLE_DEVICES", ""}}));
  m = mutate(dut, {{k910B3Count, "1"}});
  EXPECT_FALSE(m.uses_device);
  EXPECT_TRUE(m.env.empty()) << "the container uses another Ascend entry";
  m = mutate(dut, {}, {}, {}, {{"ASCEND_VISIBLE_DEVICES", "0"}});
  EXPECT_TRUE(m.env.empty()) << "the container's own value stays";
  m = mutate(dut, {{k910ACount, "1"}});
  EXPECT_TRUE(m.uses_device);
  EXPECT_TRUE(m.env.empty());
  const DeviceUnderTest off("ascend", k910A);
  EXPECT_TRUE(mutate(off, {{"cpu", "1"}}).env.empty()) << "overwriteEnv defaults to false";
}

TEST(AscendRequests, GenerateResourceRequests) {
  const DeviceUnderTest dut("ascend", k910A);
  expect_request(request(dut, {}).request, 0, 0, 0, 0);
  expect_request(request(dut, {{k910ACount, "2"}, {k910AMem, "8738"}}).request, 2, 8738, 0, 0);
  expect_request(request(dut, {{k910ACount, "2"}}).request, 2, 0, 100, 0);
  // Limits first, then requests.
  expect_request(request(dut, {}, {{k910ACount, "1"}, {k910AMem, "4369"}}).request, 1, 4369, 0, 0);
}

TEST(AscendRequests, GenerateResourceRequestsVnpuCoreMode) {
  const DeviceUnderTest dut("ascend", k910B3NoTemplates);
  expect_request(
      request(dut, {{k910B3Count, "1"}, {k910B3Core, "10"}, {k910B3Mem, "15360"}}).request, 1,
      15360, 0, 10);
  // Cores are rounded up (Go's Quantity.Value()).
  expect_request(request(dut, {{k910B3Count, "1"}, {k910B3Core, "500m"}}).request, 1, 0, 100, 1);
  const DeviceUnderTest no_core("ascend",
                                R"({"commonWord": "Ascend910B3", "resourceCoreName": ""})");
  expect_request(request(no_core, {{k910B3Count, "1"}, {k910B3Core, "10"}}).request, 1, 0, 100, 0);
}

TEST(AscendRequests, GenerateResourceRequestsFactor) {
  for (const auto& [factor, expected] :
       std::vector<std::pair<int, std::int64_t>>{{10, 1280}, {100, 12800}, {0, 128}}) {
    const DeviceUnderTest dut("ascend", R"({"memoryFactor": )" + std::to_string(factor) + "}");
    expect_request(request(dut, {{k910ACount, "1"}, {k910AMem, "128"}}).request, 1, expected, 0, 0);
    EXPECT_EQ(dut.plugin().description().memory_factor, factor > 1 ? factor : 1);
  }
}

TEST(AscendRequests, GenerateResourceRequestsOutOfRangeValues) {
  const DeviceUnderTest dut("ascend", k910B3NoTemplates);
  const std::vector<Pairs> cases = {
      {{k910B3Count, "1"}, {k910B3Mem, "16Gi"}},
      {{k910B3Count, "1"}, {k910B3Mem, "16Gi"}, {k910B3Core, "10"}},
      {{k910B3Count, "1"}, {k910B3Mem, "-1m"}},
      {{k910B3Count, "1"}, {k910B3Mem, "-100"}},
      {{k910B3Count, "2200000000"}},
      {{k910B3Count, "1"}, {k910B3Core, "-1"}},
      {{k910B3Count, "1"}, {k910B3Core, "2200000000"}},
  };
  for (const Pairs& limits : cases) {
    const RequestResult r = request(dut, limits);
    EXPECT_EQ(r.request.count, 0) << limits.back().second;
    EXPECT_NE(r.warning, "") << limits.back().second;
  }
  EXPECT_EQ(request(dut, {{k910B3Count, "1"}, {k910B3Mem, "16Gi"}}).warning,
            "invalid huawei.com/Ascend910B3-memory value 16Gi in container c1: must be an integer "
            "number of MiB between 0 and 2147483647");
}

TEST(AscendRequests, GenerateResourceRequestsMemoryFactorOverflow) {
  const DeviceUnderTest dut("ascend", R"({"memoryFactor": 10})");
  const RequestResult r = request(dut, {{k910ACount, "1"}, {k910AMem, "300000000"}});
  EXPECT_EQ(r.request.count, 0);
  EXPECT_EQ(r.warning,
            "invalid huawei.com/Ascend910A-memory value 300000000 in container c1: times "
            "memoryFactor 10 exceeds 2147483647 MiB");
}

TEST(AscendRequests, NonIntegerMemoryIsUnusableNotAWholeCard_9d) {
  // §1.9d fixed: HAMi reads 1.5 or 1500m as memory 0, a whole NPU.
  const DeviceUnderTest dut("ascend", k910A);
  for (const char* bad : {"1.5", "1500m"}) {
    const RequestResult r = request(dut, {{k910ACount, "1"}}, {{k910AMem, bad}});
    EXPECT_EQ(r.request.count, 0) << bad;
    EXPECT_NE(r.warning, "") << bad;
  }
}

}  // namespace
}  // namespace hami::testing
