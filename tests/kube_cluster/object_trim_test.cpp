// Trimmed objects are much smaller and build the same models and records.
#include "kube/object_trim.hpp"

#include <gtest/gtest.h>

#include "cluster/object_records.hpp"
#include "k8s/pod.hpp"
#include "test_files.hpp"

namespace hami::kube {
namespace {

using testing::compact;
using testing::parse;

std::string_view sv(hami_str s) {
  return {s.ptr, s.len};
}

void expect_same_kvs(const hami_kv* a, size_t a_len, const hami_kv* b, size_t b_len,
                     const std::string& what) {
  ASSERT_EQ(a_len, b_len) << what;
  for (size_t i = 0; i < a_len; ++i) {
    EXPECT_EQ(sv(a[i].key), sv(b[i].key)) << what;
    EXPECT_EQ(sv(a[i].value), sv(b[i].value)) << what;
  }
}

// Everything the host reads from a pod, except container env (dropped by
// design: only admission reads it, from the AdmissionReview).
void expect_same_pod(const cluster::PodRecord& full, const cluster::PodRecord& trimmed) {
  EXPECT_EQ(full.namespace_, trimmed.namespace_);
  EXPECT_EQ(full.name, trimmed.name);
  EXPECT_EQ(full.uid, trimmed.uid);
  EXPECT_EQ(full.node_name, trimmed.node_name);
  EXPECT_EQ(full.resource_version, trimmed.resource_version);
  EXPECT_EQ(full.phase, trimmed.phase);
  EXPECT_EQ(full.terminating, trimmed.terminating);
  EXPECT_EQ(full.init_containers_succeeded, trimmed.init_containers_succeeded);
  const hami_pod_view& a = full.model->view();
  const hami_pod_view& b = trimmed.model->view();
  EXPECT_EQ(sv(a.scheduler_name), sv(b.scheduler_name));
  EXPECT_EQ(sv(a.runtime_class_name), sv(b.runtime_class_name));
  EXPECT_EQ(a.init_count, b.init_count);
  expect_same_kvs(a.annotations, a.annotations_len, b.annotations, b.annotations_len,
                  "annotations");
  expect_same_kvs(a.labels, a.labels_len, b.labels, b.labels_len, "labels");
  ASSERT_EQ(a.containers_len, b.containers_len);
  for (size_t i = 0; i < a.containers_len; ++i) {
    const auto& ca = a.containers[i];
    const auto& cb = b.containers[i];
    EXPECT_EQ(sv(ca.name), sv(cb.name));
    EXPECT_EQ(ca.is_init, cb.is_init);
    EXPECT_EQ(ca.privileged, cb.privileged);
    expect_same_kvs(ca.limits, ca.limits_len, cb.limits, cb.limits_len, "limits");
    expect_same_kvs(ca.requests, ca.requests_len, cb.requests, cb.requests_len, "requests");
    EXPECT_EQ(full.model->container_json(i).sidecar, trimmed.model->container_json(i).sidecar);
    EXPECT_EQ(cb.env_len, 0U);
  }
}

cluster::PodRecord record_of(const rapidjson::Value& pod) {
  auto r = cluster::make_pod_record(pod);
  return *r;
}

TEST(ObjectTrim, UpstreamPodShrinksAndKeepsTheRecord) {
  const std::string original = testing::data_file("core.v1.Pod.json");
  const auto pod = parse(original);
  rapidjson::Document holder;
  const rapidjson::Value trimmed = trim_pod(pod, holder.GetAllocator());
  const std::string small = compact(trimmed);
  // The schema-complete fixture is ~60 KB of volumes, probes, env,
  // managedFields, conditions…; what the records need fits in a small
  // fraction of it.
  EXPECT_LT(small.size() * 10, compact(pod).size()) << small.size();
  EXPECT_EQ(small.find("managedFields"), std::string::npos);
  EXPECT_EQ(small.find("volumes"), std::string::npos);
  EXPECT_EQ(small.find("\"env\""), std::string::npos);
  EXPECT_EQ(small.find("conditions"), std::string::npos);

  const auto full = record_of(pod);
  const auto cut = record_of(trimmed);
  EXPECT_EQ(full.name, "nameValue");
  EXPECT_TRUE(full.terminating);
  EXPECT_GT(full.model->view().containers_len, 1U);
  EXPECT_GT(full.model->view().containers[0].env_len, 0U);
  expect_same_pod(full, cut);
}

TEST(ObjectTrim, InitContainersSucceededSurvivesTrimming) {
  auto pod = parse(testing::data_file("core.v1.Pod.json"));
  for (auto& s : pod["status"]["initContainerStatuses"].GetArray())
    s["state"]["terminated"]["exitCode"].SetInt(0);
  rapidjson::Document holder;
  const rapidjson::Value trimmed = trim_pod(pod, holder.GetAllocator());
  const auto full = record_of(pod);
  const auto cut = record_of(trimmed);
  EXPECT_TRUE(full.init_containers_succeeded);
  expect_same_pod(full, cut);
}

TEST(ObjectTrim, PodGroupNameSurvivesTrimming) {
  auto pod = parse(testing::data_file("core.v1.Pod.json"));
  rapidjson::Value group(rapidjson::kObjectType);
  group.AddMember("podGroupName", "gang", pod.GetAllocator());
  pod["spec"].RemoveMember("schedulingGroup");
  pod["spec"].AddMember("schedulingGroup", group, pod.GetAllocator());
  rapidjson::Document holder;
  const rapidjson::Value trimmed = trim_pod(pod, holder.GetAllocator());
  EXPECT_EQ(record_of(pod).pod_group_name, "gang");
  EXPECT_EQ(record_of(trimmed).pod_group_name, "gang");
}

TEST(ObjectTrim, PriorityAndStartTimeSurviveTrimming) {
  // Preemption orders victims by spec.priority and status.startTime.
  const auto pod =
      parse(R"({"metadata":{"name":"p"},"spec":{"priority":1000,"containers":[]},)"
            R"("status":{"phase":"Running","startTime":"2025-06-15T15:06:30Z","conditions":[]}})");
  rapidjson::Document holder;
  const rapidjson::Value trimmed = trim_pod(pod, holder.GetAllocator());
  const auto cut = record_of(trimmed);
  EXPECT_EQ(cut.model->priority(), 1000);
  EXPECT_EQ(cut.model->start_time(), "2025-06-15T15:06:30Z");
  EXPECT_EQ(compact(trimmed).find("conditions"), std::string::npos);
}

TEST(ObjectTrim, WrongTypesStillRejected) {
  const auto pod = parse(R"({"metadata":{"name":"p","annotations":{"a":1}}})");
  rapidjson::Document holder;
  const rapidjson::Value trimmed = trim_pod(pod, holder.GetAllocator());
  EXPECT_THROW(cluster::make_pod_record(trimmed), k8s::ObjectError);
  const auto bad_spec = parse(R"({"metadata":{"name":"p"},"spec":{"containers":"x"}})");
  const rapidjson::Value t2 = trim_pod(bad_spec, holder.GetAllocator());
  EXPECT_THROW(cluster::make_pod_record(t2), k8s::ObjectError);
}

TEST(ObjectTrim, UpstreamNodeKeepsTheModel) {
  const auto node = parse(testing::data_file("core.v1.Node.json"));
  rapidjson::Document holder;
  const rapidjson::Value trimmed = trim_node(node, holder.GetAllocator());
  EXPECT_LT(compact(trimmed).size() * 4, compact(node).size());
  const auto a = cluster::make_node_model(node);
  const auto b = cluster::make_node_model(trimmed);
  EXPECT_EQ(a->name(), b->name());
  EXPECT_EQ(a->uid(), b->uid());
  EXPECT_EQ(a->resource_version(), b->resource_version());
  const auto& va = a->view();
  const auto& vb = b->view();
  expect_same_kvs(va.annotations, va.annotations_len, vb.annotations, vb.annotations_len, "ann");
  expect_same_kvs(va.labels, va.labels_len, vb.labels, vb.labels_len, "labels");
  expect_same_kvs(va.allocatable, va.allocatable_len, vb.allocatable, vb.allocatable_len, "alloc");
  expect_same_kvs(va.capacity, va.capacity_len, vb.capacity, vb.capacity_len, "capacity");
}

TEST(ObjectTrim, QuotaAndNamespace) {
  const auto quota = parse(
      R"({"kind":"ResourceQuota","metadata":{"name":"q","namespace":"ml","resourceVersion":"7","managedFields":[{}]},"spec":{"hard":{"limits.nvidia.com/gpumem":"2000"},"scopes":["x"]},"status":{"used":{}}})");
  rapidjson::Document holder;
  const rapidjson::Value q = trim_quota(quota, holder.GetAllocator());
  EXPECT_EQ(
      compact(q),
      R"({"metadata":{"name":"q","namespace":"ml","resourceVersion":"7"},"spec":{"hard":{"limits.nvidia.com/gpumem":"2000"}}})");
  const auto ns = parse(
      R"({"metadata":{"name":"ml","resourceVersion":"3","labels":{"team":"a"},"annotations":{"x":"y"}},"spec":{"finalizers":["kubernetes"]}})");
  const rapidjson::Value n = trim_namespace(ns, holder.GetAllocator());
  EXPECT_EQ(compact(n),
            R"({"metadata":{"name":"ml","resourceVersion":"3","labels":{"team":"a"}}})");
  const auto record = cluster::make_namespace_record(n);
  EXPECT_EQ(record.name, "ml");
  ASSERT_EQ(record.labels.size(), 1U);
  EXPECT_EQ(record.labels[0].second, "a");
}

}  // namespace
}  // namespace hami::kube
