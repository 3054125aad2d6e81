#include "admission/pod_patcher.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "admission/json_patch.hpp"
#include "k8s/pod.hpp"

namespace hami::admission {
namespace {

using nlohmann::json;

// Runs `mutate` on a PodModel of `pod`, applies the produced patch with
// nlohmann's independent RFC 6902 implementation and returns the patched
// pod; `ops` receives the patch text.
template <class F>
json patched(const std::string& pod, F&& mutate, std::string& ops) {
  rapidjson::Document doc;
  doc.Parse(pod.data(), pod.size());
  k8s::PodModel model(doc);
  JsonPatch patch;
  PodPatcher patcher(model, patch);
  mutate(patcher);
  ops = patch.json();
  return json::parse(pod).patch(json::parse(ops));
}

// Applies the same mutations again to an already patched pod: nothing may change.
template <class F>
void expect_idempotent(const json& pod, F&& mutate) {
  std::string ops;
  const json again = patched(pod.dump(), mutate, ops);
  EXPECT_EQ(ops, "[]");
  EXPECT_EQ(again, pod);
}

TEST(PodPatcher, AddsMissingParentsFirstThenTheValues) {
  const std::string pod = R"({"metadata":{"name":"p"},"spec":{
    "initContainers":[{"name":"init"}],
    "containers":[{"name":"a","image":"x"},{"name":"b","resources":{"requests":{"cpu":"1"}}}]}})";
  const auto mutate = [](PodPatcher& p) {
    p.set_limit(0, "nvidia.com/gpucores", "100");
    p.set_limit(0, "nvidia.com/gpu", "1");
    p.set_limit(1, "nvidia.com/gpu", "1");
    p.set_limit(2, "nvidia.com/gpumem", "4000");
    p.set_env(1, "NVIDIA_VISIBLE_DEVICES", "none");
    p.set_env(1, "CUDA_TASK_PRIORITY", "1");
  };
  std::string ops;
  const json out = patched(pod, mutate, ops);
  EXPECT_EQ(
      ops,
      R"([{"op":"add","path":"/spec/initContainers/0/resources","value":{}},)"
      R"({"op":"add","path":"/spec/initContainers/0/resources/limits","value":{}},)"
      R"({"op":"add","path":"/spec/initContainers/0/resources/limits/nvidia.com~1gpucores","value":"100"},)"
      R"({"op":"add","path":"/spec/initContainers/0/resources/limits/nvidia.com~1gpu","value":"1"},)"
      R"({"op":"add","path":"/spec/containers/0/resources","value":{}},)"
      R"({"op":"add","path":"/spec/containers/0/resources/limits","value":{}},)"
      R"({"op":"add","path":"/spec/containers/0/resources/limits/nvidia.com~1gpu","value":"1"},)"
      R"({"op":"add","path":"/spec/containers/1/resources/limits","value":{}},)"
      R"({"op":"add","path":"/spec/containers/1/resources/limits/nvidia.com~1gpumem","value":"4000"},)"
      R"({"op":"add","path":"/spec/containers/0/env","value":[]},)"
      R"({"op":"add","path":"/spec/containers/0/env/0","value":{"name":"NVIDIA_VISIBLE_DEVICES","value":"none"}},)"
      R"({"op":"add","path":"/spec/containers/0/env/1","value":{"name":"CUDA_TASK_PRIORITY","value":"1"}}])");
  const json& init = out["spec"]["initContainers"][0];
  EXPECT_EQ(init["resources"]["limits"],
            json({{"nvidia.com/gpucores", "100"}, {"nvidia.com/gpu", "1"}}));
  const json& a = out["spec"]["containers"][0];
  EXPECT_EQ(a["image"], "x");
  EXPECT_EQ(a["resources"]["limits"], json({{"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(a["env"], json::parse(R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"none"},
                                      {"name":"CUDA_TASK_PRIORITY","value":"1"}])"));
  const json& b = out["spec"]["containers"][1];
  EXPECT_EQ(b["resources"]["requests"], json({{"cpu", "1"}}));
  EXPECT_EQ(b["resources"]["limits"], json({{"nvidia.com/gpumem", "4000"}}));
  expect_idempotent(out, mutate);
}

TEST(PodPatcher, RequestsAndAnnotationsOnABarePod) {
  const std::string pod = R"({"spec":{"containers":[{"name":"a"}]}})";
  const auto mutate = [](PodPatcher& p) {
    p.set_request(0, "example.com/mem", "4Gi");
    p.set_annotation("example.com/req-num", "1");
    p.set_annotation("a/b~c", "x");
  };
  std::string ops;
  const json out = patched(pod, mutate, ops);
  EXPECT_EQ(
      ops,
      R"([{"op":"add","path":"/spec/containers/0/resources","value":{}},)"
      R"({"op":"add","path":"/spec/containers/0/resources/requests","value":{}},)"
      R"({"op":"add","path":"/spec/containers/0/resources/requests/example.com~1mem","value":"4Gi"},)"
      R"({"op":"add","path":"/metadata","value":{}},)"
      R"({"op":"add","path":"/metadata/annotations","value":{}},)"
      R"({"op":"add","path":"/metadata/annotations/example.com~1req-num","value":"1"},)"
      R"({"op":"add","path":"/metadata/annotations/a~1b~0c","value":"x"}])");
  EXPECT_EQ(out["metadata"]["annotations"], json({{"example.com/req-num", "1"}, {"a/b~c", "x"}}));
  expect_idempotent(out, mutate);
}

TEST(PodPatcher, ReplacesExistingValuesInPlace) {
  const std::string pod = R"({"spec":{"schedulerName":"default-scheduler","containers":[
    {"name":"a","resources":{"limits":{"nvidia.com/gpu":"2"}},
     "env":[{"name":"X","value":"1"},{"name":"P","valueFrom":{"fieldRef":{"fieldPath":"x"}}},
            {"name":"X","value":"2"}]}]}})";
  const auto mutate = [](PodPatcher& p) {
    p.set_limit(0, "nvidia.com/gpu", "1");
    p.set_env(0, "X", "3");  // the effective X is element 2
    p.set_env(0, "P", "literal");
    p.set_scheduler_name("hami-scheduler");
  };
  std::string ops;
  const json out = patched(pod, mutate, ops);
  EXPECT_EQ(
      ops,
      R"([{"op":"replace","path":"/spec/containers/0/resources/limits/nvidia.com~1gpu","value":"1"},)"
      R"({"op":"replace","path":"/spec/containers/0/env/2","value":{"name":"X","value":"3"}},)"
      R"({"op":"replace","path":"/spec/containers/0/env/1","value":{"name":"P","value":"literal"}},)"
      R"({"op":"replace","path":"/spec/schedulerName","value":"hami-scheduler"}])");
  EXPECT_EQ(out["spec"]["schedulerName"], "hami-scheduler");
  EXPECT_EQ(out["spec"]["containers"][0]["env"],
            json::parse(R"([{"name":"X","value":"1"},{"name":"P","value":"literal"},
                            {"name":"X","value":"3"}])"));
  expect_idempotent(out, mutate);
}

TEST(PodPatcher, SchedulerNameAndRuntimeClassOnABarePod) {
  const std::string pod = R"({"metadata":{"name":"p"}})";
  const auto mutate = [](PodPatcher& p) {
    p.set_scheduler_name("hami-scheduler");
    p.set_runtime_class_if_absent("nvidia");
    p.set_runtime_class_if_absent("other");  // the pod has one now
    p.set_runtime_class_if_absent("");
  };
  std::string ops;
  const json out = patched(pod, mutate, ops);
  EXPECT_EQ(ops, R"([{"op":"add","path":"/spec","value":{}},)"
                 R"({"op":"add","path":"/spec/schedulerName","value":"hami-scheduler"},)"
                 R"({"op":"add","path":"/spec/runtimeClassName","value":"nvidia"}])");
  EXPECT_EQ(out["spec"],
            json({{"schedulerName", "hami-scheduler"}, {"runtimeClassName", "nvidia"}}));
  expect_idempotent(out, mutate);
}

TEST(PodPatcher, RuntimeClassIsKeptWhenThePodHasOne) {
  std::string ops;
  const json out = patched(R"({"spec":{"runtimeClassName":"kata","containers":[{}]}})",
                           [](PodPatcher& p) { p.set_runtime_class_if_absent("nvidia"); }, ops);
  EXPECT_EQ(ops, "[]");
  EXPECT_EQ(out["spec"]["runtimeClassName"], "kata");
  // An empty name counts as none.
  const json filled = patched(R"({"spec":{"runtimeClassName":"","containers":[{}]}})",
                              [](PodPatcher& p) { p.set_runtime_class_if_absent("nvidia"); }, ops);
  EXPECT_EQ(ops, R"([{"op":"replace","path":"/spec/runtimeClassName","value":"nvidia"}])");
  EXPECT_EQ(filled["spec"]["runtimeClassName"], "nvidia");
}

TEST(PodPatcher, NullMembersAreReplacedByAdd) {
  const std::string pod = R"({"spec":{"schedulerName":null,"containers":[
    {"name":"a","resources":null,"env":null}]}})";
  const auto mutate = [](PodPatcher& p) {
    p.set_limit(0, "amd.com/gpu", "1");
    p.set_env(0, "A", "1");
    p.set_scheduler_name("s");
  };
  std::string ops;
  const json out = patched(pod, mutate, ops);
  EXPECT_EQ(ops,
            R"([{"op":"add","path":"/spec/containers/0/resources","value":{}},)"
            R"({"op":"add","path":"/spec/containers/0/resources/limits","value":{}},)"
            R"({"op":"add","path":"/spec/containers/0/resources/limits/amd.com~1gpu","value":"1"},)"
            R"({"op":"add","path":"/spec/containers/0/env","value":[]},)"
            R"({"op":"add","path":"/spec/containers/0/env/0","value":{"name":"A","value":"1"}},)"
            R"({"op":"add","path":"/spec/schedulerName","value":"s"}])");
  EXPECT_EQ(out["spec"]["containers"][0]["resources"]["limits"]["amd.com/gpu"], "1");
  expect_idempotent(out, mutate);
}

TEST(PodPatcher, KeysNeedingEscapesRoundTrip) {
  const std::string pod = R"({"spec":{"containers":[{"resources":{"limits":{}}}]}})";
  const auto mutate = [](PodPatcher& p) {
    p.set_limit(0, "example.com/a~b/c", "1");
    p.set_limit(0, "quote\"key", "2");
    p.set_env(0, "WEIRD\"NAME\\", "line\nbreak");
  };
  std::string ops;
  const json out = patched(pod, mutate, ops);
  const json& limits = out["spec"]["containers"][0]["resources"]["limits"];
  EXPECT_EQ(limits["example.com/a~b/c"], "1");
  EXPECT_EQ(limits["quote\"key"], "2");
  EXPECT_NE(ops.find(R"("path":"/spec/containers/0/resources/limits/example.com~1a~0b~1c")"),
            std::string::npos);
  EXPECT_EQ(out["spec"]["containers"][0]["env"][0]["value"], "line\nbreak");
  expect_idempotent(out, mutate);
}

TEST(PodPatcher, RefusesTextThatIsNotUtf8AndChangesNothing) {
  const std::string pod = R"({"spec":{"containers":[{"name":"a"}]}})";
  rapidjson::Document doc;
  doc.Parse(pod.data(), pod.size());
  k8s::PodModel model(doc);
  JsonPatch patch;
  PodPatcher patcher(model, patch);
  EXPECT_THROW(patcher.set_limit(0, "nvidia.com/gpu", "\xff"), std::invalid_argument);
  EXPECT_THROW(patcher.set_limit(0, "\xc3", "1"), std::invalid_argument);
  EXPECT_THROW(patcher.set_env(0, "A", "\xed\xa0\x80"), std::invalid_argument);
  EXPECT_THROW(patcher.set_runtime_class_if_absent("\xfe"), std::invalid_argument);
  try {
    patcher.set_scheduler_name("hami-\x8f");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "scheduler name is not valid UTF-8");
  }
  EXPECT_TRUE(patch.empty());
  EXPECT_EQ(model.view().containers[0].limits_len, 0U);
  EXPECT_EQ(model.view().containers[0].env_len, 0U);
  EXPECT_FALSE(model.has_scheduler_name());
  patcher.set_env(0, "NAME", "caf\xc3\xa9");
  EXPECT_EQ(patch.size(), 2U);
}

}  // namespace
}  // namespace hami::admission
