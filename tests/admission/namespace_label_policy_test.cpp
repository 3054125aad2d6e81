#include "namespace_label_policy.hpp"

#include <gtest/gtest.h>

#include "fake_admission_host.hpp"

namespace hami::nslabel {
namespace {

using admission::testing::FakeAdmissionHost;
using admission::testing::ReviewOutput;
using admission::testing::run_review;

constexpr std::string_view kPod = R"({"spec":{"containers":[{"name":"m"}]}})";

ReviewOutput review(FakeAdmissionHost& host, std::string_view pod = kPod,
                    std::string_view config = R"({"label":"gpu.example.com/sharing"})") {
  NamespaceLabelPolicy policy(parse_namespace_label_config(config));
  return run_review(policy, pod, host, "hami-scheduler", "team-a");
}

TEST(NamespaceLabelPolicy, OptedInNamespaceRoutesManagedPods) {
  FakeAdmissionHost host;
  host.label_status = HAMI_OK;
  host.label_value = "enabled";
  host.uses_managed = true;
  const ReviewOutput out = review(host);
  EXPECT_EQ(host.label_key, "gpu.example.com/sharing");
  EXPECT_EQ(out.verdict, HAMI_ADMIT_ALLOW);
  EXPECT_EQ(out.scheduler_name, "hami-scheduler");
  EXPECT_EQ(host.defaults_calls, 1);
  EXPECT_EQ(host.quota_calls, 0);
}

TEST(NamespaceLabelPolicy, OptedInPodWithoutDeviceKeepsItsScheduler) {
  FakeAdmissionHost host;
  host.label_status = HAMI_OK;
  host.label_value = "on";
  const ReviewOutput out =
      review(host, kPod, R"({"label":"l","value":"on","schedulerName":"gpu-scheduler"})");
  EXPECT_EQ(out.verdict, HAMI_ADMIT_ALLOW);
  EXPECT_EQ(out.scheduler_name, "");
  host.uses_managed = true;
  host.defaults_calls = 0;
  EXPECT_EQ(review(host, kPod, R"({"label":"l","value":"on","schedulerName":"gpu-scheduler"})")
                .scheduler_name,
            "gpu-scheduler");
}

TEST(NamespaceLabelPolicy, OtherNamespacesAreSkipped) {
  FakeAdmissionHost absent;
  const ReviewOutput out = review(absent);
  EXPECT_EQ(out.verdict, HAMI_ADMIT_SKIP);
  EXPECT_EQ(out.message, "namespace team-a is not labelled gpu.example.com/sharing=enabled");
  EXPECT_EQ(absent.defaults_calls, 0);

  FakeAdmissionHost other;
  other.label_status = HAMI_OK;
  other.label_value = "disabled";
  EXPECT_EQ(review(other).verdict, HAMI_ADMIT_SKIP);

  FakeAdmissionHost unknown;
  unknown.label_status = HAMI_UNAVAILABLE;
  const ReviewOutput skipped = review(unknown);
  EXPECT_EQ(skipped.verdict, HAMI_ADMIT_SKIP);
  EXPECT_EQ(skipped.message, "namespace labels are not known; pod admitted unchanged");
}

TEST(NamespaceLabelPolicy, DenialsAndErrors) {
  FakeAdmissionHost bad;
  bad.label_status = HAMI_OK;
  bad.label_value = "enabled";
  bad.defaults_status = HAMI_INVALID_ARGUMENT;
  bad.defaults_message = "bad value";
  const ReviewOutput out = review(bad);
  EXPECT_EQ(out.verdict, HAMI_ADMIT_DENY);
  EXPECT_EQ(out.code, 400);
  EXPECT_EQ(out.message, "bad value");

  FakeAdmissionHost pinned;
  pinned.label_status = HAMI_OK;
  pinned.label_value = "enabled";
  pinned.uses_managed = true;
  const ReviewOutput node =
      review(pinned, R"({"spec":{"nodeName":"n1","containers":[{"name":"m"}]}})");
  EXPECT_EQ(node.verdict, HAMI_ADMIT_DENY);
  EXPECT_EQ(node.message, "pod has node assigned");

  FakeAdmissionHost broken;
  broken.label_status = HAMI_INTERNAL;
  EXPECT_THROW((void)review(broken), Error);
}

TEST(NamespaceLabelConfig, ParsesAndRejects) {
  const NamespaceLabelConfig c = parse_namespace_label_config(R"({"label":"a"})");
  EXPECT_EQ(c.label, "a");
  EXPECT_EQ(c.value, "enabled");
  EXPECT_EQ(c.scheduler_name, "");
  for (const std::string_view bad :
       {"", "{}", R"({"label":""})", R"({"label":"a","x":1})", R"({"label":"a","value":2})",
        R"({"label":"a","schedulerName":""})", "[]"}) {
    EXPECT_THROW((void)parse_namespace_label_config(bad), Error) << bad;
  }
}

}  // namespace
}  // namespace hami::nslabel
