// NVIDIA admission through nvidia.so's ABI: HAMi §2.3 and the cases of
// pkg/device/nvidia/device_test.go (Test_MutateAdmission*,
// TestMutateAdmissionDefaultsExclusiveCore, TestMutateAdmission_{Priority,
// CorePolicy,RuntimeClassName,OverwriteEnv}).
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "k8s_views.hpp"

namespace hami::testing {
namespace {

using Limits = Pairs;

ContainerMutation mutate(const DeviceUnderTest& dut, Limits limits, Limits requests = {},
                         std::string runtime_class = "", Pairs env = {}) {
  PodFixture pod;
  pod.runtime_class(std::move(runtime_class));
  pod.container({"test", false, std::move(limits), std::move(requests), std::move(env)});
  return dut.plugin().mutate_container(pod.view(), 0);
}

Pairs pairs(std::initializer_list<std::pair<const char*, const char*>> l) {
  Pairs out;
  for (const auto& [k, v] : l)
    out.emplace_back(k, v);
  return out;
}

TEST(NvidiaAdmission, DetectsGpuFromCountCoresMemoryOrPercentage) {
  const DeviceUnderTest dut("nvidia");
  EXPECT_TRUE(mutate(dut, pairs({{"nvidia.com/gpu", "1"}})).uses_device);
  for (const char* r :
       {"nvidia.com/gpucores", "nvidia.com/gpumem", "nvidia.com/gpumem-percentage"}) {
    const ContainerMutation m = mutate(dut, Pairs{{r, "1"}});
    EXPECT_TRUE(m.uses_device) << r;
    // defaultGPUNum (chart default 1) is injected as the count.
    ASSERT_FALSE(m.limits.empty()) << r;
    EXPECT_EQ(m.limits.front(), (std::pair<std::string, std::string>{"nvidia.com/gpu", "1"})) << r;
  }
  EXPECT_FALSE(mutate(dut, {}).uses_device);
}

TEST(NvidiaAdmission, DefaultGpuNumZeroDisablesCountInjection) {
  const DeviceUnderTest dut("nvidia", R"({"defaultGPUNum": 0})");
  const ContainerMutation m = mutate(dut, pairs({{"nvidia.com/gpumem", "1000"}}));
  EXPECT_FALSE(m.uses_device);
  EXPECT_TRUE(m.limits.empty());
}

TEST(NvidiaAdmission, OnlyLimitsTriggerCountInjection) {
  const DeviceUnderTest dut("nvidia");
  const ContainerMutation m = mutate(dut, {}, pairs({{"nvidia.com/gpumem", "1000"}}));
  EXPECT_FALSE(m.uses_device);
  EXPECT_TRUE(m.limits.empty());
}

TEST(NvidiaAdmission, MemoryPercentageMustBeAnIntegerBetween0And100) {
  const DeviceUnderTest dut("nvidia");
  for (const char* ok : {"0", "100", "50"}) {
    EXPECT_NO_THROW(
        mutate(dut, Pairs{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", ok}}))
        << ok;
  }
  for (const char* bad : {"101", "150", "-1", "50.5", "abc"}) {
    try {
      mutate(dut, Pairs{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", bad}});
      ADD_FAILURE() << "accepted " << bad;
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
      EXPECT_EQ(
          std::string(e.what()),
          std::string("nvidia.mutate_container: invalid nvidia.com/gpumem-percentage value ") +
              bad + " in container test: must be an integer between 0 and 100");
    }
  }
  // Checked in requests too (limits first, then requests).
  EXPECT_THROW(mutate(dut, pairs({{"nvidia.com/gpu", "1"}}),
                      pairs({{"nvidia.com/gpumem-percentage", "101"}})),
               CallError);
}

// Values filter could not use are denied at admission, not dropped at
// filter as HAMi does (7.7#8: the pod would then pass every node).
TEST(NvidiaAdmission, ValuesFilterCannotUseAreDenied) {
  const DeviceUnderTest dut("nvidia");
  const auto denial = [&](Pairs limits) -> std::string {
    try {
      mutate(dut, std::move(limits));
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
      return e.what();
    }
    return "<admitted>";
  };
  EXPECT_EQ(denial(pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "8Gi"}})),
            "nvidia.mutate_container: invalid nvidia.com/gpumem value 8Gi in container test: "
            "must be an integer number of MiB between 0 and 2147483647");
  EXPECT_EQ(denial(pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1.5"}})),
            "nvidia.mutate_container: invalid nvidia.com/gpumem value 1.5 in container test: "
            "must be an integer number of MiB between 0 and 2147483647");
  // Without a count too: defaultGPUNum adds one.
  EXPECT_EQ(denial(pairs({{"nvidia.com/gpumem", "-1"}})),
            "nvidia.mutate_container: invalid nvidia.com/gpumem value -1 in container test: "
            "must be an integer number of MiB between 0 and 2147483647");
  EXPECT_EQ(denial(pairs({{"nvidia.com/gpu", "0.5"}})),
            "nvidia.mutate_container: invalid nvidia.com/gpu value 0.5 in container test: must "
            "be an integer between 0 and 2147483647");
  EXPECT_EQ(denial(pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpucores", "-5"}})),
            "nvidia.mutate_container: invalid nvidia.com/gpucores value -5 in container test: "
            "must not be negative");
  // A MiB count, as HAMi documents it, is admitted.
  EXPECT_EQ(denial(pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "8192"}})), "<admitted>");
}

struct ExclusiveCase {
  const char* name;
  std::string config;
  Pairs limits;
  Pairs requests;
  bool want_core;
};

TEST(NvidiaAdmission, DefaultsExclusiveCore) {
  const std::vector<ExclusiveCase> cases = {
      {"exclusive via percentage",
       "{}",
       pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "100"}}),
       {},
       true},
      {"exclusive via percentage in requests only",
       "{}",
       {},
       pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "100"}}),
       true},
      {"non-exclusive percentage",
       "{}",
       pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "50"}}),
       {},
       false},
      {"no memory fields defaults to exclusive", "{}", pairs({{"nvidia.com/gpu", "1"}}), {}, true},
      {"explicit cores remains unchanged",
       "{}",
       pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpucores", "70"}}),
       {},
       false},
      {"explicit cores in requests remains unchanged",
       "{}",
       {},
       pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpucores", "55"}}),
       false},
      {"memory size present treated as shareable",
       "{}",
       pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "8192"}}),
       {},
       false},
      {"memory name empty treated as exclusive",
       R"({"resourceMemoryName": ""})",
       pairs({{"nvidia.com/gpu", "1"}}),
       {},
       true},
  };
  for (const ExclusiveCase& c : cases) {
    const DeviceUnderTest dut("nvidia", c.config);
    const ContainerMutation m = mutate(dut, c.limits, c.requests);
    const bool added = std::find(m.limits.begin(), m.limits.end(),
                                 std::pair<std::string, std::string>{"nvidia.com/gpucores",
                                                                     "100"}) != m.limits.end();
    EXPECT_EQ(added, c.want_core) << c.name;
    EXPECT_EQ(m.limits.size(), c.want_core ? 1u : 0u) << c.name;
    // A count in requests only still marks the container as a GPU user once
    // the exclusive default applies.
    if (c.want_core) {
      EXPECT_TRUE(m.uses_device) << c.name;
    }
  }
}

TEST(NvidiaAdmission, ExclusiveDefaultWithCustomResourceNames) {
  const DeviceUnderTest dut("nvidia", R"({"resourceCountName": "hami.io/gpu",
      "resourceMemoryName": "hami.io/gpumem",
      "resourceMemoryPercentageName": "hami.io/gpumem-percentage",
      "resourceCoreName": "hami.io/gpucores"})");
  const ContainerMutation m =
      mutate(dut, pairs({{"hami.io/gpu", "1"}, {"hami.io/gpumem-percentage", "100"}}));
  EXPECT_TRUE(m.uses_device);
  ASSERT_EQ(m.limits.size(), 1u);
  EXPECT_EQ(m.limits[0], (std::pair<std::string, std::string>{"hami.io/gpucores", "100"}));
}

TEST(NvidiaAdmission, CountInjectionThenExclusiveDefaultInOrder) {
  // cores-only would be shareable (cores given); percentage-only 100 gets both.
  const DeviceUnderTest dut("nvidia");
  const ContainerMutation m = mutate(dut, pairs({{"nvidia.com/gpumem-percentage", "100"}}));
  ASSERT_EQ(m.limits.size(), 2u);
  EXPECT_EQ(m.limits[0], (std::pair<std::string, std::string>{"nvidia.com/gpu", "1"}));
  EXPECT_EQ(m.limits[1], (std::pair<std::string, std::string>{"nvidia.com/gpucores", "100"}));
}

TEST(NvidiaAdmission, PriorityBecomesCudaTaskPriority) {
  const DeviceUnderTest dut("nvidia");
  const ContainerMutation m =
      mutate(dut, pairs({{"nvidia.com/gpu", "1"}, {"nvidia.com/priority", "5"}}));
  ASSERT_EQ(m.env.size(), 1u);
  EXPECT_EQ(m.env[0], (std::pair<std::string, std::string>{"CUDA_TASK_PRIORITY", "5"}));
  // Only limits are read.
  const ContainerMutation r =
      mutate(dut, pairs({{"nvidia.com/gpu", "1"}}), pairs({{"nvidia.com/priority", "5"}}));
  EXPECT_TRUE(r.env.empty());
}

TEST(NvidiaAdmission, CorePolicyIsInjectedIntoEveryContainer) {
  const DeviceUnderTest dut("nvidia", R"({"gpuCorePolicy": "force"})");
  const ContainerMutation gpu = mutate(dut, pairs({{"nvidia.com/gpu", "1"}}));
  ASSERT_EQ(gpu.env.size(), 1u);
  EXPECT_EQ(gpu.env[0],
            (std::pair<std::string, std::string>{"GPU_CORE_UTILIZATION_POLICY", "force"}));
  // HAMi 7.7#4, kept on purpose: non-GPU containers get it too.
  const ContainerMutation cpu = mutate(dut, {});
  ASSERT_EQ(cpu.env.size(), 1u);
  EXPECT_EQ(cpu.env[0].first, "GPU_CORE_UTILIZATION_POLICY");

  const DeviceUnderTest defaults("nvidia", R"({"gpuCorePolicy": "default"})");
  EXPECT_TRUE(mutate(defaults, pairs({{"nvidia.com/gpu", "1"}})).env.empty());
}

TEST(NvidiaAdmission, RuntimeClassNameOnlyWhenGpuAndPodHasNone) {
  const DeviceUnderTest dut("nvidia", R"({"runtimeClassName": "nvidia"})");
  EXPECT_EQ(mutate(dut, pairs({{"nvidia.com/gpu", "1"}})).runtime_class, "nvidia");
  EXPECT_FALSE(mutate(dut, pairs({{"nvidia.com/gpu", "1"}}), {}, "kata").runtime_class.has_value());
  EXPECT_FALSE(mutate(dut, {}).runtime_class.has_value());
  const DeviceUnderTest none("nvidia");
  EXPECT_FALSE(mutate(none, pairs({{"nvidia.com/gpu", "1"}})).runtime_class.has_value());
}

TEST(NvidiaAdmission, OverwriteEnvHidesGpusFromNonGpuContainers) {
  const DeviceUnderTest dut("nvidia", R"({"overwriteEnv": true})");
  const ContainerMutation cpu = mutate(dut, {});
  EXPECT_FALSE(cpu.uses_device);
  ASSERT_EQ(cpu.env.size(), 1u);
  EXPECT_EQ(cpu.env[0], (std::pair<std::string, std::string>{"NVIDIA_VISIBLE_DEVICES", "none"}));
  EXPECT_TRUE(mutate(dut, pairs({{"nvidia.com/gpu", "1"}})).env.empty());
}

TEST(NvidiaAdmission, ExistingEnvIsNotAddedTwice) {
  // A user's own value wins, and a second admission pass adds nothing.
  const DeviceUnderTest dut("nvidia", R"({"overwriteEnv": true, "gpuCorePolicy": "force"})");
  const ContainerMutation m =
      mutate(dut, {}, {}, "",
             pairs({{"NVIDIA_VISIBLE_DEVICES", "all"}, {"GPU_CORE_UTILIZATION_POLICY", "force"}}));
  EXPECT_TRUE(m.env.empty());
}

}  // namespace
}  // namespace hami::testing
