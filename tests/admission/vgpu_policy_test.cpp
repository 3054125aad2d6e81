#include "vgpu_policy.hpp"

#include <gtest/gtest.h>

#include <string>

#include "fake_admission_host.hpp"
#include "vgpu_config.hpp"

namespace hami::vgpu {
namespace {

using admission::testing::FakeAdmissionHost;
using admission::testing::ReviewOutput;
using admission::testing::run_review;

constexpr std::string_view kGpuPod = R"({"spec":{"containers":[{"name":"main",
  "resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})";

std::string pod_with(std::string_view spec_members) {
  return std::string(R"({"metadata":{"name":"p"},"spec":{)") + std::string(spec_members) + "}}";
}

ReviewOutput review(const VgpuConfig& config, std::string_view pod, FakeAdmissionHost& host) {
  VgpuPolicy policy(config);
  return run_review(policy, pod, host);
}

TEST(VgpuPolicy, GpuPodIsSentToOurScheduler) {
  FakeAdmissionHost host;
  host.uses_managed = true;
  const ReviewOutput out = review({}, kGpuPod, host);
  EXPECT_EQ(out.verdict, HAMI_ADMIT_ALLOW);
  EXPECT_EQ(out.scheduler_name, "hami-scheduler");
  EXPECT_EQ(out.message, "");
  EXPECT_EQ(host.defaults_calls, 1);
  EXPECT_EQ(host.quota_calls, 1);
}

TEST(VgpuPolicy, PodWithoutDeviceIsAllowedWithoutSchedulerChange) {
  FakeAdmissionHost host;
  const ReviewOutput out = review({}, pod_with(R"("containers":[{"name":"c"}])"), host);
  EXPECT_EQ(out.verdict, HAMI_ADMIT_ALLOW);
  EXPECT_EQ(out.scheduler_name, "");
  EXPECT_EQ(host.defaults_calls, 1);
}

TEST(VgpuPolicy, NoAppContainersIsDenied) {
  for (const std::string& pod : {pod_with(""), pod_with(R"("containers":[])"),
                                 pod_with(R"("initContainers":[{"name":"i"}])")}) {
    FakeAdmissionHost host;
    const ReviewOutput out = review({}, pod, host);
    EXPECT_EQ(out.verdict, HAMI_ADMIT_DENY) << pod;
    EXPECT_EQ(out.code, 403);
    EXPECT_EQ(out.message, "pod has no containers");
    EXPECT_EQ(host.defaults_calls, 0);
  }
}

TEST(VgpuPolicy, SchedulerNameGate) {
  struct Case {
    std::string_view scheduler;
    bool force;
    bool taken;
  };
  const Case cases[] = {{"", true, true},
                        {"hami-scheduler", true, true},
                        {"hami-scheduler", false, true},
                        {"default-scheduler", true, true},
                        {"default-scheduler", false, false},
                        {"volcano", true, false},
                        {"volcano", false, false}};
  for (const Case& c : cases) {
    FakeAdmissionHost host;
    host.uses_managed = true;
    VgpuConfig config;
    config.force_overwrite_default_scheduler = c.force;
    const std::string pod =
        c.scheduler.empty()
            ? std::string(kGpuPod)
            : pod_with(
                  R"("schedulerName":")" + std::string(c.scheduler) +
                  R"(","containers":[{"name":"m","resources":{"limits":{"nvidia.com/gpu":"1"}}}])");
    const ReviewOutput out = review(config, pod, host);
    if (c.taken) {
      EXPECT_EQ(out.verdict, HAMI_ADMIT_ALLOW) << c.scheduler << c.force;
      EXPECT_EQ(out.scheduler_name, "hami-scheduler");
    } else {
      EXPECT_EQ(out.verdict, HAMI_ADMIT_SKIP) << c.scheduler << c.force;
      EXPECT_EQ(out.message, "pod already has different scheduler assigned");
      EXPECT_EQ(out.scheduler_name, "");
      EXPECT_EQ(host.defaults_calls, 0);
    }
  }
}

TEST(VgpuPolicy, ConfiguredSchedulerNameReplacesTheHosts) {
  VgpuConfig config;
  config.scheduler_name = "gpu-scheduler";
  FakeAdmissionHost host;
  host.uses_managed = true;
  EXPECT_EQ(review(config, kGpuPod, host).scheduler_name, "gpu-scheduler");
  // ... and a pod already naming it is ours, while the host's name is not.
  FakeAdmissionHost again;
  again.uses_managed = true;
  EXPECT_EQ(
      review(config, pod_with(R"("schedulerName":"gpu-scheduler","containers":[{"name":"m"}])"),
             again)
          .verdict,
      HAMI_ADMIT_ALLOW);
  FakeAdmissionHost other;
  EXPECT_EQ(
      review(config, pod_with(R"("schedulerName":"hami-scheduler","containers":[{"name":"m"}])"),
             other)
          .verdict,
      HAMI_ADMIT_SKIP);
}

TEST(VgpuPolicy, PrivilegedSkipLeavesThePodAlone) {
  FakeAdmissionHost host;
  host.uses_managed = true;
  const ReviewOutput out = review(
      {}, pod_with(R"("initContainers":[{"name":"setup","securityContext":{"privileged":true}}],
                      "containers":[{"name":"main","resources":{"limits":{"nvidia.com/gpu":"1"}}}])"),
      host);
  EXPECT_EQ(out.verdict, HAMI_ADMIT_SKIP);
  EXPECT_EQ(out.message, "container setup is privileged; pod admitted unchanged");
  EXPECT_EQ(host.defaults_calls, 0);
  EXPECT_EQ(host.quota_calls, 0);
}

TEST(VgpuPolicy, PrivilegedDenyOnlyForManagedPods) {
  VgpuConfig config;
  config.privileged = PrivilegedMode::Deny;
  const std::string pod =
      pod_with(R"("containers":[{"name":"a"},{"name":"b","securityContext":{"privileged":true}}])");
  FakeAdmissionHost gpu;
  gpu.uses_managed = true;
  const ReviewOutput denied = review(config, pod, gpu);
  EXPECT_EQ(denied.verdict, HAMI_ADMIT_DENY);
  EXPECT_EQ(denied.code, 403);
  EXPECT_EQ(denied.message, "container b is privileged");
  FakeAdmissionHost plain;
  const ReviewOutput allowed = review(config, pod, plain);
  EXPECT_EQ(allowed.verdict, HAMI_ADMIT_ALLOW);
  EXPECT_EQ(allowed.scheduler_name, "");
}

TEST(VgpuPolicy, NodeNameOnAManagedPodIsDenied) {
  const std::string pod = pod_with(R"("nodeName":"gpu-1","containers":[{"name":"m"}])");
  FakeAdmissionHost gpu;
  gpu.uses_managed = true;
  const ReviewOutput out = review({}, pod, gpu);
  EXPECT_EQ(out.verdict, HAMI_ADMIT_DENY);
  EXPECT_EQ(out.code, 403);
  EXPECT_EQ(out.message, "pod has node assigned");
  FakeAdmissionHost plain;
  EXPECT_EQ(review({}, pod, plain).verdict, HAMI_ADMIT_ALLOW);
}

TEST(VgpuPolicy, InvalidDeviceValueDeniesWithTheDeviceMessage) {
  FakeAdmissionHost host;
  host.defaults_status = HAMI_INVALID_ARGUMENT;
  host.defaults_message = "invalid nvidia.com/gpumem-percentage value 101 in container m";
  const ReviewOutput out = review({}, kGpuPod, host);
  EXPECT_EQ(out.verdict, HAMI_ADMIT_DENY);
  EXPECT_EQ(out.code, 400);
  EXPECT_EQ(out.message, host.defaults_message);
  EXPECT_EQ(host.quota_calls, 0);
}

TEST(VgpuPolicy, HostFailuresPropagateAsErrors) {
  FakeAdmissionHost host;
  host.defaults_status = HAMI_INTERNAL;
  host.defaults_message = "nvidia.mutate_container: boom";
  try {
    (void)review({}, kGpuPod, host);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), HAMI_INTERNAL);
    EXPECT_STREQ(e.what(), "nvidia.mutate_container: boom");
  }
  FakeAdmissionHost quota;
  quota.quota_status = HAMI_INTERNAL;
  quota.quota_message = "view exploded";
  EXPECT_THROW((void)review({}, kGpuPod, quota), Error);
}

TEST(VgpuPolicy, QuotaOutcomes) {
  FakeAdmissionHost exceeded;
  exceeded.uses_managed = true;
  exceeded.quota_status = HAMI_RESOURCE_EXHAUSTED;
  exceeded.quota_message = "exceeding resource quota in namespace default: x";
  const ReviewOutput denied = review({}, kGpuPod, exceeded);
  EXPECT_EQ(denied.verdict, HAMI_ADMIT_DENY);
  EXPECT_EQ(denied.code, 403);
  EXPECT_EQ(denied.message, "exceeding resource quota in namespace default: x");

  FakeAdmissionHost unknown;
  unknown.uses_managed = true;
  unknown.quota_status = HAMI_UNAVAILABLE;
  EXPECT_EQ(review({}, kGpuPod, unknown).verdict, HAMI_ADMIT_ALLOW);

  VgpuConfig off;
  off.quota = false;
  FakeAdmissionHost skipped;
  skipped.uses_managed = true;
  skipped.quota_status = HAMI_RESOURCE_EXHAUSTED;
  EXPECT_EQ(review(off, kGpuPod, skipped).verdict, HAMI_ADMIT_ALLOW);
  EXPECT_EQ(skipped.quota_calls, 0);
}

TEST(VgpuConfig, DefaultsAndEveryKey) {
  const VgpuConfig defaults = parse_vgpu_config("{}");
  EXPECT_EQ(defaults.scheduler_name, "");
  EXPECT_EQ(defaults.privileged, PrivilegedMode::Skip);
  EXPECT_TRUE(defaults.force_overwrite_default_scheduler);
  EXPECT_TRUE(defaults.quota);
  EXPECT_EQ(parse_vgpu_config("").privileged, PrivilegedMode::Skip);
  const VgpuConfig all = parse_vgpu_config(
      R"({"schedulerName":"s","privileged":"deny","forceOverwriteDefaultScheduler":false,"quota":false})");
  EXPECT_EQ(all.scheduler_name, "s");
  EXPECT_EQ(all.privileged, PrivilegedMode::Deny);
  EXPECT_FALSE(all.force_overwrite_default_scheduler);
  EXPECT_FALSE(all.quota);
}

TEST(VgpuConfig, RejectsMalformedDocuments) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"[]", "vgpu config: must be a JSON object"},
      {"{", "vgpu config: must be a JSON object"},
      {R"({"schedulerName":""})", "vgpu config: schedulerName must be a non-empty string"},
      {R"({"schedulerName":1})", "vgpu config: schedulerName must be a non-empty string"},
      {R"({"privileged":"allow"})", R"(vgpu config: privileged must be "skip" or "deny")"},
      {R"({"quota":"on"})", "vgpu config: quota must be a boolean"},
      {R"({"forceOverwriteDefaultScheduler":1})",
       "vgpu config: forceOverwriteDefaultScheduler must be a boolean"},
      {R"({"scheduler":"x"})", "vgpu config: unknown key scheduler"}};
  for (const auto& [json, message] : cases) {
    try {
      (void)parse_vgpu_config(json);
      ADD_FAILURE() << json;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
      EXPECT_EQ(e.what(), message);
    }
  }
}

std::string gpu_pod_annotated(std::string_view annotations) {
  return std::string(R"({"metadata":{"name":"p","annotations":)") + std::string(annotations) +
         R"(},"spec":{"containers":[{"name":"main","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})";
}

TEST(VgpuPolicy, NumaAlignmentAcceptsBestEffortAndStrict) {
  for (const char* annotations : {R"({})", R"({"hami.io/numa-alignment":"best-effort"})",
                                  R"({"hami.io/numa-alignment":"strict"})"}) {
    FakeAdmissionHost host;
    host.uses_managed = true;
    const ReviewOutput out = review({}, gpu_pod_annotated(annotations), host);
    EXPECT_EQ(out.verdict, HAMI_ADMIT_ALLOW) << annotations;
    EXPECT_EQ(out.message, "") << annotations;
    EXPECT_EQ(out.scheduler_name, "hami-scheduler") << annotations;
  }
}

TEST(VgpuPolicy, NumaAlignmentOtherValuesAreDenied) {
  for (const char* value : {"Strict", "", "best_effort", "none"}) {
    FakeAdmissionHost host;
    host.uses_managed = true;
    const ReviewOutput out = review(
        {}, gpu_pod_annotated(R"({"hami.io/numa-alignment":")" + std::string(value) + R"("})"),
        host);
    EXPECT_EQ(out.verdict, HAMI_ADMIT_DENY) << value;
    EXPECT_EQ(out.code, 400) << value;
    EXPECT_EQ(out.message, "pod annotation hami.io/numa-alignment is \"" + std::string(value) +
                               "\"; allowed values are \"best-effort\" and \"strict\"")
        << value;
    EXPECT_EQ(out.scheduler_name, "") << value;
  }
}

TEST(VgpuPolicy, NumaAlignmentIsNotJudgedOnPodsWithoutManagedDevices) {
  FakeAdmissionHost host;
  const ReviewOutput out = review({}, gpu_pod_annotated(R"({"hami.io/numa-alignment":"x"})"), host);
  EXPECT_EQ(out.verdict, HAMI_ADMIT_ALLOW);
}

}  // namespace
}  // namespace hami::vgpu
