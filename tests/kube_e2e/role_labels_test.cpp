// The scheduler role labels (HAMi reference §1.8) against the fake API
// server: the exact merge patch, no write when the value is right, errors
// named and retried by the next refresh.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <string>

#include "fake_apiserver.hpp"
#include "kube/api_client.hpp"
#include "kube/leader_role_labels.hpp"

namespace {

using namespace hami;
using namespace std::chrono_literals;
using hami::testing::FakeApiServer;

std::shared_ptr<kube::ApiClient> client_for(const FakeApiServer& fake) {
  kube::ApiConfig config;
  config.server = fake.url();
  config.qps = 0;
  config.request_timeout = 2s;
  config.max_retries = 1;
  return std::make_shared<kube::ApiClient>(config);
}

std::string scheduler_pod(std::string_view ns, std::string_view name, std::string_view role) {
  std::string labels = R"("app.kubernetes.io/component":"hami-scheduler")";
  if (!role.empty())
    labels += R"(,"hami.io/scheduler-role":")" + std::string(role) + "\"";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + std::string(name) +
         R"(","namespace":")" + std::string(ns) + R"(","labels":{)" + labels +
         R"(}},"spec":{"containers":[{"name":"c","image":"i"}]}})";
}

// The role label of a stored pod; "<none>" when absent.
std::string role_of(const FakeApiServer& fake, std::string_view ns, std::string_view name) {
  const auto text = fake.object("Pod", ns, name);
  if (!text)
    return "<no pod>";
  rapidjson::Document doc;
  doc.Parse(text->c_str());
  const auto& labels = doc["metadata"]["labels"];
  if (!labels.HasMember("hami.io/scheduler-role"))
    return "<none>";
  return labels["hami.io/scheduler-role"].GetString();
}

size_t patches(const FakeApiServer& fake) {
  size_t n = 0;
  for (const auto& r : fake.requests())
    n += r.method == "PATCH" ? 1u : 0u;
  return n;
}

struct RoleLabels : ::testing::Test {
  FakeApiServer fake;
  kube::RoleLabeler labeler{client_for(fake), [] {
                              kube::RoleLabelOptions o;
                              o.namespace_ = "hami-system";
                              o.own_pod = "sched-a";
                              return o;
                            }()};
};

TEST(RoleLabelBody, IsAMergePatchOfTheLabel) {
  EXPECT_EQ(kube::role_label_patch_body("hami.io/scheduler-role", "leader"),
            R"({"metadata":{"labels":{"hami.io/scheduler-role":"leader"}}})");
}

TEST_F(RoleLabels, OwnPodLeaderOthersFollowerOtherPodsUntouched) {
  fake.apply(scheduler_pod("hami-system", "sched-a", ""));
  fake.apply(scheduler_pod("hami-system", "sched-b", "leader"));
  // Not selected: another namespace, another component.
  fake.apply(scheduler_pod("other", "sched-c", ""));
  fake.apply(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"webhook","namespace":"hami-system","labels":{"app.kubernetes.io/component":"hami-device-plugin"}},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  fake.clear_requests();

  const kube::RoleLabelPass pass = labeler.refresh();
  EXPECT_EQ(pass.pods, 2u);
  EXPECT_EQ(pass.patched, 2u);
  EXPECT_TRUE(pass.errors.empty());
  EXPECT_EQ(role_of(fake, "hami-system", "sched-a"), "leader");
  EXPECT_EQ(role_of(fake, "hami-system", "sched-b"), "follower");
  EXPECT_EQ(role_of(fake, "other", "sched-c"), "<none>");
  EXPECT_EQ(role_of(fake, "hami-system", "webhook"), "<none>");

  const auto requests = fake.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].path, "/api/v1/namespaces/hami-system/pods");
  EXPECT_EQ(requests[0].query, "labelSelector=app.kubernetes.io%2Fcomponent%3Dhami-scheduler");
  EXPECT_EQ(requests[1].method, "PATCH");
  EXPECT_EQ(requests[1].path, "/api/v1/namespaces/hami-system/pods/sched-a");
  EXPECT_EQ(requests[1].content_type, "application/merge-patch+json");
  EXPECT_EQ(requests[1].body, R"({"metadata":{"labels":{"hami.io/scheduler-role":"leader"}}})");
  EXPECT_EQ(requests[2].path, "/api/v1/namespaces/hami-system/pods/sched-b");
  EXPECT_EQ(requests[2].body, R"({"metadata":{"labels":{"hami.io/scheduler-role":"follower"}}})");
}

TEST_F(RoleLabels, RightValuesAreNotWrittenAgain) {
  fake.apply(scheduler_pod("hami-system", "sched-a", "leader"));
  fake.apply(scheduler_pod("hami-system", "sched-b", "follower"));
  fake.clear_requests();
  const kube::RoleLabelPass pass = labeler.refresh();
  EXPECT_EQ(pass.pods, 2u);
  EXPECT_EQ(pass.patched, 0u);
  EXPECT_EQ(patches(fake), 0u);
}

TEST_F(RoleLabels, AFailedPatchIsNamedAndRetriedByTheNextRefresh) {
  fake.apply(scheduler_pod("hami-system", "sched-a", "follower"));
  fake.apply(scheduler_pod("hami-system", "sched-b", "leader"));
  fake.fail_next("PATCH", "/api/v1/namespaces/hami-system/pods/sched-b", 500);
  kube::RoleLabelPass pass = labeler.refresh();
  EXPECT_EQ(pass.patched, 1u);
  ASSERT_EQ(pass.errors.size(), 1u);
  EXPECT_EQ(pass.errors[0].rfind(
                "patch pod hami-system/sched-b label hami.io/scheduler-role=follower: ", 0),
            0u)
      << pass.errors[0];
  EXPECT_EQ(role_of(fake, "hami-system", "sched-a"), "leader");
  EXPECT_EQ(role_of(fake, "hami-system", "sched-b"), "leader");

  pass = labeler.refresh();
  EXPECT_TRUE(pass.errors.empty());
  EXPECT_EQ(pass.patched, 1u);
  EXPECT_EQ(role_of(fake, "hami-system", "sched-b"), "follower");
}

TEST_F(RoleLabels, LeadershipLostDuringAPassStopsItsWrites) {
  fake.apply(scheduler_pod("hami-system", "sched-a", ""));
  fake.apply(scheduler_pod("hami-system", "sched-b", ""));
  int asked = 0;
  // Leading for the first write only.
  const kube::RoleLabelPass pass = labeler.refresh([&asked] { return ++asked == 1; });
  EXPECT_TRUE(pass.stopped);
  EXPECT_EQ(pass.patched, 1u);
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(role_of(fake, "hami-system", "sched-a"), "leader");
  EXPECT_EQ(role_of(fake, "hami-system", "sched-b"), "<none>");
}

TEST_F(RoleLabels, AFailedListIsNamedAndNothingIsWritten) {
  fake.apply(scheduler_pod("hami-system", "sched-a", ""));
  fake.fail_next("GET", "/api/v1/namespaces/hami-system/pods", 500);
  const kube::RoleLabelPass pass = labeler.refresh();
  ASSERT_EQ(pass.errors.size(), 1u);
  EXPECT_EQ(pass.errors[0].rfind("list pods hami-system (app.kubernetes.io/component="
                                 "hami-scheduler): ",
                                 0),
            0u)
      << pass.errors[0];
  EXPECT_EQ(patches(fake), 0u);
  EXPECT_EQ(role_of(fake, "hami-system", "sched-a"), "<none>");
}

TEST(RoleLabelList, ReadsNamesAndRolesSkippingItemsWithoutAName) {
  const auto pods = kube::parse_role_pods(
      R"({"kind":"PodList","items":[{"metadata":{"name":"a","labels":{"hami.io/scheduler-role":"leader"}}},)"
      R"({"metadata":{"name":"b","labels":{"hami.io/scheduler-role":7}}},{"metadata":{"labels":{}}},)"
      R"(3,{"metadata":{"name":"c"}}]})",
      "hami.io/scheduler-role");
  ASSERT_TRUE(pods);
  ASSERT_EQ(pods->size(), 3u);
  EXPECT_EQ((*pods)[0].name, "a");
  EXPECT_EQ((*pods)[0].role, "leader");
  EXPECT_EQ((*pods)[1].name, "b");
  EXPECT_FALSE((*pods)[1].role);
  EXPECT_EQ((*pods)[2].name, "c");
  EXPECT_FALSE((*pods)[2].role);
}

TEST(RoleLabelList, NotAPodListIsNullopt) {
  EXPECT_FALSE(kube::parse_role_pods("", "k"));
  EXPECT_FALSE(kube::parse_role_pods("[]", "k"));
  EXPECT_FALSE(kube::parse_role_pods(R"({"items":{}})", "k"));
  EXPECT_FALSE(kube::parse_role_pods(R"({"items":[)", "k"));
  EXPECT_TRUE(kube::parse_role_pods(R"({"items":[]})", "k"));
}

TEST(RoleLabelOptions, RequiredValuesAreChecked) {
  FakeApiServer fake;
  kube::RoleLabelOptions o;
  o.own_pod = "a";
  EXPECT_THROW(kube::RoleLabeler(client_for(fake), o), std::invalid_argument);
  o.namespace_ = "ns";
  o.key = "";
  EXPECT_THROW(kube::RoleLabeler(client_for(fake), o), std::invalid_argument);
}

}  // namespace
