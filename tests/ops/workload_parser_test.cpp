// The simulate workload parser: expansion of Pods, Deployments, Jobs and
// Lists in order, and its errors, exactly.
#include "ops/workload_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hami::ops {
namespace {

std::vector<std::string> names(const std::vector<WorkloadPod>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods)
    out.push_back(p.namespace_ + "/" + p.name);
  return out;
}

std::string error_of(std::string_view text, size_t max_pods = kMaxWorkloadPods) {
  try {
    (void)parse_workload(text, "w.yaml", max_pods);
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "no error";
}

TEST(WorkloadParser, ExpandsOwnersInOrderAcrossDocuments) {
  const auto pods = parse_workload(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: infer, namespace: ml}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: infer}}
    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: solo}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: List
items:
- apiVersion: batch/v1
  kind: Job
  metadata: {name: train, namespace: ml}
  spec:
    parallelism: 2
    template: {spec: {containers: [{name: c}]}}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: once, namespace: ml}
  spec: {template: {spec: {containers: [{name: c}]}}}
---
- {apiVersion: v1, kind: Pod, metadata: {name: seq, namespace: x}, spec: {containers: []}}
)",
                                   "w.yaml");
  EXPECT_EQ(names(pods),
            (std::vector<std::string>{"ml/infer-0", "ml/infer-1", "ml/infer-2", "default/solo",
                                      "ml/train-0", "ml/train-1", "ml/once-0", "x/seq"}));
  EXPECT_EQ(pods[1].json,
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"infer-1","namespace":"ml",)"
            R"("labels":{"app":"infer"}},"spec":{"containers":[{"name":"c","resources":{"limits":)"
            R"({"nvidia.com/gpu":1}}}]},"status":{"phase":"Pending"}})");
}

TEST(WorkloadParser, DropsStatusUidAndKeepsAnnotations) {
  const auto pods = parse_workload(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n","uid":"u-1",)"
      R"("resourceVersion":"7","annotations":{"a":"b"}},"spec":{"nodeName":"n1"},)"
      R"("status":{"phase":"Running"}})",
      "w.json");
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0].json,
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n",)"
            R"("annotations":{"a":"b"}},"spec":{"nodeName":"n1"},"status":{"phase":"Pending"}})");
}

TEST(WorkloadParser, ZeroReplicasAndEmptyInputAreEmpty) {
  EXPECT_TRUE(parse_workload("", "w.yaml").empty());
  EXPECT_TRUE(parse_workload("---\n---\n", "w.yaml").empty());
  EXPECT_TRUE(parse_workload("kind: Deployment\nmetadata: {name: d}\nspec: {replicas: 0, "
                             "template: {spec: {containers: []}}}\n",
                             "w.yaml")
                  .empty());
}

TEST(WorkloadParser, Errors) {
  EXPECT_EQ(error_of("kind: Pod\nmetadata: {name: [\n"),
            "w.yaml: invalid YAML: yaml-cpp: error at line 3, column 1: end of sequence flow "
            "not found");
  EXPECT_EQ(error_of("kind: Service\nmetadata: {name: s}\n"),
            "w.yaml: document 1 (Service s): kind: expected Pod, Deployment, Job or a List");
  EXPECT_EQ(error_of("metadata: {name: s}\n"),
            "w.yaml: document 1 (object s): kind: missing (expected Pod, Deployment, Job or a "
            "List)");
  EXPECT_EQ(error_of("- 1\n"), "w.yaml: document 1: expected an object, got a number");
  EXPECT_EQ(error_of("kind: Pod\nspec: {}\n"),
            "w.yaml: document 1 (Pod): metadata.name: a pod needs a name");
  EXPECT_EQ(error_of("---\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: -1, "
                     "template: {}}\n"),
            "w.yaml: document 1 (Deployment d): spec.replicas: expected a whole number from 0 "
            "to 1000000");
  EXPECT_EQ(error_of("kind: Pod\nmetadata: {name: a}\n---\nkind: Job\nmetadata: {name: j}\n"
                     "spec: {parallelism: 1.5, template: {}}\n"),
            "w.yaml: document 2 (Job j): spec.parallelism: expected a whole number from 0 to "
            "1000000");
  EXPECT_EQ(error_of("kind: Job\nmetadata: {name: j}\nspec: {}\n"),
            "w.yaml: document 1 (Job j): spec.template: expected an object");
  EXPECT_EQ(error_of("kind: Deployment\nspec: {}\n"),
            "w.yaml: document 1 (Deployment): metadata.name: an owner needs a name (its pods "
            "are <name>-<i>)");
  EXPECT_EQ(error_of("kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: a}\n"),
            "w.yaml: document 2 (Pod a): pod default/a is given twice");
  EXPECT_EQ(error_of("kind: Deployment\nmetadata: {name: d}\nspec: {replicas: 3, template: "
                     "{spec: {containers: []}}}\n",
                     2),
            "w.yaml: document 1 (Deployment d): more than 2 pods in the workload");
  EXPECT_EQ(error_of("kind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, resources: "
                     "{limits: [1]}}]}\n"),
            "w.yaml: document 1 (Pod a): pod default/a: /spec/containers/0/resources/limits: "
            "expected an object, got an array");
  EXPECT_EQ(error_of("kind: List\nitems: [{kind: List, items: []}]\n"),
            "w.yaml: document 1 (List): a list inside a list");
  EXPECT_EQ(error_of("kind: List\n"), "w.yaml: document 1 (List): items: expected an array");
  // Found by fuzzing: metadata that is not an object was read as one.
  EXPECT_EQ(error_of("apiVersion: v1\nkind: Pod\nmetadata: v1\n"),
            "w.yaml: document 1 (Pod): metadata: expected an object, got a string");
  EXPECT_EQ(error_of("kind: Job\nmetadata: [j]\n"),
            "w.yaml: document 1 (Job): metadata: expected an object, got an array");
  EXPECT_EQ(error_of(std::string_view("kind: Pod\0", 10)),
            "w.yaml: a NUL byte (neither JSON nor YAML text may contain one)");
}

}  // namespace
}  // namespace hami::ops
