#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "k8s/json_path.hpp"
#include "k8s/pod.hpp"
#include "k8s/string_arena.hpp"

namespace hami::k8s {
namespace {

std::string_view sv(hami_str s) {
  return {s.ptr, s.len};
}

rapidjson::Document parse(std::string_view text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

PodModel model_of(std::string_view text, std::string_view ns = {}) {
  const rapidjson::Document doc = parse(text);
  return PodModel(doc, ns);
}

std::string kvs(const hami_kv* kv, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (i != 0)
      out += ',';
    out += sv(kv[i].key);
    out += '=';
    out += sv(kv[i].value);
  }
  return out;
}

// The pointer and problem of the ObjectError that parsing `text` throws.
std::string error_of(std::string_view text) {
  const rapidjson::Document doc = parse(text);
  try {
    PodModel model(doc);
  } catch (const ObjectError& e) {
    return e.what();
  }
  return "no error";
}

constexpr std::string_view kPod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "trainer", "uid": "u-1",
               "labels": {"app": "train"},
               "annotations": {"nvidia.com/use-gputype": "A100", "team": "ml"}},
  "spec": {
    "schedulerName": "default-scheduler",
    "initContainers": [
      {"name": "fetch", "image": "busybox",
       "resources": {"limits": {"nvidia.com/gpu": "1"}}},
      {"name": "proxy", "restartPolicy": "Always", "securityContext": {"privileged": true}}
    ],
    "containers": [
      {"name": "main",
       "resources": {"limits": {"nvidia.com/gpu": "2", "nvidia.com/gpumem": "4000"},
                     "requests": {"nvidia.com/gpu": "2", "cpu": "500m"}},
       "env": [{"name": "A", "value": "1"},
               {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
       "securityContext": {"privileged": false}}
    ]
  },
  "status": {"phase": "Pending"}
})";

TEST(PodModel, InitContainersComeFirstWithTheirJsonLocations) {
  const PodModel pod = model_of(kPod, "ml");
  const hami_pod_view& v = pod.view();
  EXPECT_EQ(v.struct_size, sizeof(hami_pod_view));
  EXPECT_EQ(sv(v.name), "trainer");
  EXPECT_EQ(sv(v.uid), "u-1");
  EXPECT_EQ(sv(v.namespace_), "ml");  // from the request: metadata has none
  EXPECT_EQ(sv(v.scheduler_name), "default-scheduler");
  EXPECT_EQ(sv(v.node_name), "");
  EXPECT_EQ(sv(v.runtime_class_name), "");
  EXPECT_EQ(kvs(v.annotations, v.annotations_len), "nvidia.com/use-gputype=A100,team=ml");
  EXPECT_EQ(kvs(v.labels, v.labels_len), "app=train");
  ASSERT_EQ(v.containers_len, 3U);
  EXPECT_EQ(v.init_count, 2U);

  EXPECT_EQ(sv(v.containers[0].name), "fetch");
  EXPECT_EQ(v.containers[0].is_init, 1U);
  EXPECT_EQ(v.containers[0].privileged, 0U);
  EXPECT_EQ(kvs(v.containers[0].limits, v.containers[0].limits_len), "nvidia.com/gpu=1");
  EXPECT_EQ(sv(v.containers[1].name), "proxy");
  EXPECT_EQ(v.containers[1].privileged, 1U);
  EXPECT_EQ(sv(v.containers[2].name), "main");
  EXPECT_EQ(v.containers[2].is_init, 0U);
  EXPECT_EQ(kvs(v.containers[2].limits, v.containers[2].limits_len),
            "nvidia.com/gpu=2,nvidia.com/gpumem=4000");
  EXPECT_EQ(kvs(v.containers[2].requests, v.containers[2].requests_len),
            "nvidia.com/gpu=2,cpu=500m");
  EXPECT_EQ(kvs(v.containers[2].env, v.containers[2].env_len), "A=1,POD=");

  const ContainerJson& fetch = pod.container_json(0);
  EXPECT_EQ(fetch.list, ContainerList::Init);
  EXPECT_EQ(fetch.index, 0U);
  EXPECT_TRUE(fetch.has_resources);
  EXPECT_TRUE(fetch.has_limits);
  EXPECT_FALSE(fetch.has_env);
  EXPECT_FALSE(fetch.sidecar);
  const ContainerJson& proxy = pod.container_json(1);
  EXPECT_EQ(proxy.list, ContainerList::Init);
  EXPECT_EQ(proxy.index, 1U);
  EXPECT_FALSE(proxy.has_resources);
  EXPECT_TRUE(proxy.sidecar);
  const ContainerJson& main = pod.container_json(2);
  EXPECT_EQ(main.list, ContainerList::App);
  EXPECT_EQ(main.index, 0U);
  EXPECT_TRUE(main.has_env);
  EXPECT_EQ(main.env_size, 2U);

  EXPECT_TRUE(pod.has_spec());
  EXPECT_TRUE(pod.has_annotations());
  EXPECT_TRUE(pod.has_labels());
  EXPECT_TRUE(pod.has_scheduler_name());
  EXPECT_FALSE(pod.has_runtime_class_name());
  EXPECT_EQ(pod.phase(), "Pending");
  EXPECT_FALSE(pod.terminating());
  EXPECT_TRUE(pod.env_is_literal(2, "A"));
  EXPECT_FALSE(pod.env_is_literal(2, "POD"));
  EXPECT_FALSE(pod.env_is_literal(2, "MISSING"));
  EXPECT_THROW((void)pod.container_json(3), std::out_of_range);
}

TEST(PodModel, MetadataNamespaceWinsOverTheRequestNamespace) {
  const PodModel pod = model_of(R"({"metadata":{"namespace":"a"},"spec":{}})", "b");
  EXPECT_EQ(sv(pod.view().namespace_), "a");
}

TEST(PodModel, UpstreamSchemaCompletePodParses) {
  std::ifstream in(std::string(HAMI_K8S_TEST_DATA) + "/core.v1.Pod.json");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_FALSE(text.empty());
  const PodModel pod = model_of(text);
  const hami_pod_view& v = pod.view();
  EXPECT_EQ(sv(v.name), "nameValue");
  EXPECT_EQ(sv(v.namespace_), "namespaceValue");
  EXPECT_EQ(sv(v.uid), "uidValue");
  EXPECT_EQ(sv(v.scheduler_name), "schedulerNameValue");
  EXPECT_EQ(sv(v.node_name), "nodeNameValue");
  EXPECT_EQ(sv(v.runtime_class_name), "runtimeClassNameValue");
  EXPECT_EQ(kvs(v.annotations, v.annotations_len), "annotationsKey=annotationsValue");
  EXPECT_EQ(kvs(v.labels, v.labels_len), "labelsKey=labelsValue");
  ASSERT_EQ(v.containers_len, 2U);
  EXPECT_EQ(v.init_count, 1U);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(sv(v.containers[i].name), "nameValue");
    EXPECT_EQ(v.containers[i].privileged, 1U);
    EXPECT_EQ(kvs(v.containers[i].limits, v.containers[i].limits_len), "limitsKey=0");
    EXPECT_EQ(kvs(v.containers[i].requests, v.containers[i].requests_len), "requestsKey=0");
    EXPECT_EQ(kvs(v.containers[i].env, v.containers[i].env_len), "nameValue=valueValue");
  }
  EXPECT_FALSE(pod.container_json(0).sidecar);  // restartPolicy is "restartPolicyValue"
  EXPECT_EQ(pod.phase(), "phaseValue");
  EXPECT_TRUE(pod.terminating());
  EXPECT_EQ(pod.priority(), 25);
  EXPECT_EQ(pod.start_time(), "2007-01-01T01:01:01Z");
}

TEST(PodModel, PriorityIsAbsentOrA32BitInteger) {
  EXPECT_EQ(model_of(R"({"spec":{}})").priority(), std::nullopt);
  EXPECT_EQ(model_of(R"({"spec":{"priority":null}})").priority(), std::nullopt);
  EXPECT_EQ(model_of(R"({"spec":{"priority":-2147483648}})").priority(), INT32_MIN);
  EXPECT_EQ(model_of(R"({"spec":{"priority":2000001000}})").priority(), 2000001000);
  EXPECT_EQ(model_of(R"({"status":{}})").start_time(), "");
  EXPECT_EQ(error_of(R"({"spec":{"priority":"high"}})"),
            "/spec/priority: expected a 32-bit integer, got a string");
  EXPECT_EQ(error_of(R"({"spec":{"priority":2147483648}})"),
            "/spec/priority: expected a 32-bit integer, got a number");
  EXPECT_EQ(error_of(R"({"spec":{"priority":1.5}})"),
            "/spec/priority: expected a 32-bit integer, got a number");
  EXPECT_EQ(error_of(R"({"status":{"startTime":7}})"),
            "/status/startTime: expected a string, got a number");
}

TEST(PodModel, NullMeansAbsentEverywhere) {
  const PodModel pod = model_of(R"({"metadata":{"name":null,"annotations":null,"labels":null},
    "spec":{"schedulerName":null,"nodeName":null,"initContainers":null,
      "containers":[{"name":"c","resources":{"limits":null,"requests":null},"env":null,
                     "securityContext":{"privileged":null}}]},
    "status":null})");
  const hami_pod_view& v = pod.view();
  EXPECT_EQ(v.name.len, 0U);
  EXPECT_EQ(v.annotations_len, 0U);
  EXPECT_FALSE(pod.has_annotations());
  EXPECT_FALSE(pod.has_labels());
  EXPECT_FALSE(pod.has_scheduler_name());  // a null member is replaced with "add"
  ASSERT_EQ(v.containers_len, 1U);
  EXPECT_EQ(v.init_count, 0U);
  EXPECT_TRUE(pod.container_json(0).has_resources);
  EXPECT_FALSE(pod.container_json(0).has_limits);
  EXPECT_FALSE(pod.container_json(0).has_env);
  EXPECT_EQ(v.containers[0].privileged, 0U);
}

TEST(PodModel, NoSpecMeansNoContainers) {
  const PodModel pod = model_of(R"({"metadata":{"name":"x"}})");
  EXPECT_FALSE(pod.has_spec());
  EXPECT_EQ(pod.view().containers_len, 0U);
  EXPECT_EQ(pod.view().containers, nullptr);
}

TEST(PodModel, WrongTypesNameThePointer) {
  EXPECT_EQ(error_of(R"([])"), "expected a Pod object, got an array");
  EXPECT_EQ(error_of(R"({"metadata":[]})"), "/metadata: expected an object, got an array");
  EXPECT_EQ(error_of(R"({"metadata":{"name":5}})"),
            "/metadata/name: expected a string, got a number");
  EXPECT_EQ(error_of(R"({"metadata":{"annotations":{"a/b~c":true}}})"),
            "/metadata/annotations/a~1b~0c: expected a string, got a boolean");
  EXPECT_EQ(error_of(R"({"metadata":{"labels":"x"}})"),
            "/metadata/labels: expected an object, got a string");
  EXPECT_EQ(error_of(R"({"spec":"x"})"), "/spec: expected an object, got a string");
  EXPECT_EQ(error_of(R"({"spec":{"containers":{}}})"),
            "/spec/containers: expected an array, got an object");
  EXPECT_EQ(error_of(R"({"spec":{"containers":[{"name":"a"},7]}})"),
            "/spec/containers/1: expected a container object, got a number");
  EXPECT_EQ(error_of(R"({"spec":{"initContainers":[{"name":"a","resources":{"limits":
            {"nvidia.com/gpu":true}}}]}})"),
            "/spec/initContainers/0/resources/limits/nvidia.com~1gpu: expected a quantity "
            "(string or number), got a boolean");
  EXPECT_EQ(error_of(R"({"spec":{"containers":[{"resources":{"requests":[]}}]}})"),
            "/spec/containers/0/resources/requests: expected an object, got an array");
  EXPECT_EQ(error_of(R"({"spec":{"containers":[{"resources":"big"}]}})"),
            "/spec/containers/0/resources: expected an object, got a string");
  EXPECT_EQ(error_of(R"({"spec":{"containers":[{"securityContext":{"privileged":"yes"}}]}})"),
            "/spec/containers/0/securityContext/privileged: expected a boolean, got a string");
  EXPECT_EQ(error_of(R"({"spec":{"containers":[{"env":[{"name":"A"},{"name":1}]}]}})"),
            "/spec/containers/0/env/1/name: expected a string, got a number");
  EXPECT_EQ(error_of(R"({"spec":{"containers":[{"env":[{"name":"A","value":false}]}]}})"),
            "/spec/containers/0/env/0/value: expected a string, got a boolean");
  EXPECT_EQ(error_of(R"({"spec":{"containers":[{"env":["A=1"]}]}})"),
            "/spec/containers/0/env/0: expected an env object, got a string");
  EXPECT_EQ(error_of(R"({"spec":{"containers":[{"env":[{"name":"A","valueFrom":"x"}]}]}})"),
            "/spec/containers/0/env/0/valueFrom: expected an object, got a string");
  EXPECT_EQ(error_of(R"({"spec":{"schedulerName":1}})"),
            "/spec/schedulerName: expected a string, got a number");
  EXPECT_EQ(error_of(R"({"spec":{"nodeName":{}}})"),
            "/spec/nodeName: expected a string, got an object");
  EXPECT_EQ(error_of(R"({"spec":{"runtimeClassName":[]}})"),
            "/spec/runtimeClassName: expected a string, got an array");
  EXPECT_EQ(error_of(R"({"spec":{"initContainers":[{"restartPolicy":1}]}})"),
            "/spec/initContainers/0/restartPolicy: expected a string, got a number");
  EXPECT_EQ(error_of(R"({"status":{"phase":2}})"),
            "/status/phase: expected a string, got a number");
}

TEST(PodModel, ObjectErrorKeepsPointerAndProblemApart) {
  const rapidjson::Document doc = parse(R"({"metadata":{"uid":[]}})");
  try {
    PodModel pod(doc);
    FAIL() << "no error";
  } catch (const ObjectError& e) {
    EXPECT_EQ(e.pointer(), "/metadata/uid");
    EXPECT_EQ(e.problem(), "expected a string, got an array");
  }
  const ObjectError whole("somewhere: broken");
  EXPECT_EQ(whole.pointer(), "");
  EXPECT_STREQ(whole.what(), "somewhere: broken");
}

TEST(PodModel, NumericQuantitiesKeepTheirValue) {
  const PodModel pod = model_of(R"({"spec":{"containers":[{"resources":{"limits":
    {"a":2,"b":1.5,"c":-3,"d":18446744073709551615,"e":"4Gi"}}}]}})");
  const hami_container_view& c = pod.view().containers[0];
  EXPECT_EQ(kvs(c.limits, c.limits_len), "a=2,b=1.5,c=-3,d=18446744073709551615,e=4Gi");
}

TEST(PodModel, DuplicateKeysKeepFirstPositionAndLastValue) {
  PodModel pod = model_of(R"({"metadata":{"annotations":{"a":"1","b":"2","a":"3"}},
    "spec":{"containers":[{"env":[{"name":"X","value":"1"},{"name":"Y","value":"2"},
                                   {"name":"X","valueFrom":{}}]}]}})");
  const hami_pod_view& v = pod.view();
  EXPECT_EQ(kvs(v.annotations, v.annotations_len), "a=3,b=2");
  EXPECT_EQ(kvs(v.containers[0].env, v.containers[0].env_len), "X=,Y=2");
  EXPECT_FALSE(pod.env_is_literal(0, "X"));
  EXPECT_EQ(pod.container_json(0).env_size, 3U);
  // The effective X is element 2, so replacing it targets env/2.
  const EnvChange change = pod.set_env(0, "X", "v");
  EXPECT_EQ(change.change, Change::Replaced);
  EXPECT_EQ(change.json_index, 2U);
}

TEST(PodModel, ManyAnnotationsWithRepeatsStayUnique) {
  std::string text = R"({"metadata":{"annotations":{)";
  for (int i = 0; i < 200; ++i) {
    if (i != 0)
      text += ',';
    text += "\"k" + std::to_string(i % 100) + "\":\"v" + std::to_string(i) + "\"";
  }
  text += "}}}";
  const PodModel pod = model_of(text);
  const hami_pod_view& v = pod.view();
  ASSERT_EQ(v.annotations_len, 100U);
  for (size_t i = 0; i < 100; ++i) {
    EXPECT_EQ(sv(v.annotations[i].key), "k" + std::to_string(i));
    EXPECT_EQ(sv(v.annotations[i].value), "v" + std::to_string(i + 100));
  }
}

TEST(PodModel, SetLimitReportsTheOperationAndUpdatesTheView) {
  PodModel pod = model_of(R"({"spec":{"containers":[{"name":"a"},
    {"name":"b","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})");
  EXPECT_FALSE(pod.container_json(0).has_resources);
  EXPECT_EQ(pod.set_limit(0, "nvidia.com/gpucores", "100"), Change::Added);
  EXPECT_TRUE(pod.container_json(0).has_resources);
  EXPECT_TRUE(pod.container_json(0).has_limits);
  EXPECT_EQ(pod.limit(0, "nvidia.com/gpucores"), "100");
  EXPECT_EQ(pod.set_limit(0, "nvidia.com/gpucores", "100"), Change::None);
  EXPECT_EQ(pod.set_limit(1, "nvidia.com/gpu", "1"), Change::None);
  EXPECT_EQ(pod.set_limit(1, "nvidia.com/gpu", "2"), Change::Replaced);
  const hami_pod_view& v = pod.view();
  EXPECT_EQ(kvs(v.containers[0].limits, v.containers[0].limits_len), "nvidia.com/gpucores=100");
  EXPECT_EQ(kvs(v.containers[1].limits, v.containers[1].limits_len), "nvidia.com/gpu=2");
  EXPECT_EQ(pod.request(1, "nvidia.com/gpu"), std::nullopt);
}

TEST(PodModel, SetEnvAppendsOrReplacesTheEffectiveEntry) {
  PodModel pod = model_of(R"({"spec":{"containers":[{"name":"a"},
    {"env":[{"name":"A","value":"1"},{"name":"B","valueFrom":{"x":{}}}]}]}})");
  EnvChange added = pod.set_env(0, "NVIDIA_VISIBLE_DEVICES", "none");
  EXPECT_EQ(added.change, Change::Added);
  EXPECT_EQ(added.json_index, 0U);
  EXPECT_TRUE(pod.container_json(0).has_env);
  EXPECT_EQ(pod.container_json(0).env_size, 1U);
  EXPECT_EQ(pod.set_env(0, "NVIDIA_VISIBLE_DEVICES", "none").change, Change::None);
  added = pod.set_env(0, "CUDA_TASK_PRIORITY", "1");
  EXPECT_EQ(added.json_index, 1U);

  EXPECT_EQ(pod.set_env(1, "A", "1").change, Change::None);
  const EnvChange replaced = pod.set_env(1, "B", "");
  EXPECT_EQ(replaced.change, Change::Replaced);  // valueFrom becomes a literal
  EXPECT_EQ(replaced.json_index, 1U);
  EXPECT_TRUE(pod.env_is_literal(1, "B"));
  const EnvChange appended = pod.set_env(1, "C", "3");
  EXPECT_EQ(appended.json_index, 2U);
  const hami_pod_view& v = pod.view();
  EXPECT_EQ(kvs(v.containers[0].env, v.containers[0].env_len),
            "NVIDIA_VISIBLE_DEVICES=none,CUDA_TASK_PRIORITY=1");
  EXPECT_EQ(kvs(v.containers[1].env, v.containers[1].env_len), "A=1,B=,C=3");
}

TEST(PodModel, SchedulerAndRuntimeClassMutators) {
  PodModel pod = model_of(R"({"spec":{"schedulerName":"default-scheduler","containers":[{}]}})");
  EXPECT_EQ(pod.set_scheduler_name("hami-scheduler"), Change::Replaced);
  EXPECT_EQ(pod.set_scheduler_name("hami-scheduler"), Change::None);
  EXPECT_EQ(sv(pod.view().scheduler_name), "hami-scheduler");
  EXPECT_EQ(pod.set_runtime_class_name("nvidia"), Change::Added);
  EXPECT_EQ(pod.set_runtime_class_name("nvidia"), Change::None);
  EXPECT_EQ(pod.set_runtime_class_name("other"), Change::Replaced);
  EXPECT_EQ(sv(pod.view().runtime_class_name), "other");

  PodModel bare = model_of(R"({"spec":{"containers":[{}]}})");
  EXPECT_EQ(bare.set_scheduler_name(""), Change::Added);  // absent differs from ""
  EXPECT_TRUE(bare.has_scheduler_name());
}

TEST(PodModel, MovedModelOutlivesItsDocument) {
  PodModel moved = [] {
    rapidjson::Document doc;
    doc.Parse(R"({"metadata":{"name":"p","annotations":{"k":"v"}},
      "spec":{"containers":[{"name":"c","resources":{"limits":{"r":"1"}}}]}})");
    PodModel inner(doc);
    return PodModel(std::move(inner));
  }();
  const hami_pod_view& v = moved.view();
  EXPECT_EQ(sv(v.name), "p");
  EXPECT_EQ(kvs(v.annotations, v.annotations_len), "k=v");
  ASSERT_EQ(v.containers_len, 1U);
  EXPECT_EQ(v.containers, &moved.view().containers[0]);
  EXPECT_EQ(kvs(v.containers[0].limits, v.containers[0].limits_len), "r=1");
}

TEST(JsonPointer, TokensAreEscapedTildeFirst) {
  std::string p;
  append_pointer_token(p, "nvidia.com/gpu");
  append_pointer_token(p, "a~b/c");
  append_pointer_token(p, "~1");
  append_pointer_index(p, 12);
  append_pointer_token(p, "");
  EXPECT_EQ(p, "/nvidia.com~1gpu/a~0b~1c/~01/12/");
  const JsonPath root;
  const JsonPath a(root, "x/y");
  const JsonPath b(a, size_t{3});
  EXPECT_EQ(root.pointer(), "");
  EXPECT_EQ(b.pointer(), "/x~1y/3");
}

TEST(StringArena, StoredStringsStayPutAcrossBlocksAndMoves) {
  StringArena arena;
  std::vector<std::string_view> stored;
  std::vector<std::string> originals;
  for (int i = 0; i < 500; ++i) {
    originals.push_back(
        std::string(static_cast<size_t>(i % 40) + 1, static_cast<char>('a' + i % 26)));
  }
  originals.push_back(std::string(5000, 'z'));  // larger than a block
  originals.push_back("after-large");
  for (const std::string& s : originals)
    stored.push_back(arena.store(s));
  StringArena moved(std::move(arena));
  for (size_t i = 0; i < originals.size(); ++i)
    EXPECT_EQ(stored[i], originals[i]) << i;
  EXPECT_TRUE(moved.store("").empty());
}

TEST(StringArena, AReservedBlockTakesWhatWasReservedAndNoMore) {
  StringArena arena;
  arena.reserve(3000);
  EXPECT_EQ(arena.capacity(), 3000u);
  // Small strings and one larger than half a default block, all in it.
  const std::string large(1500, 'l');
  EXPECT_EQ(arena.store(std::string(700, 'a')), std::string(700, 'a'));
  EXPECT_EQ(arena.store(large), large);
  EXPECT_EQ(arena.store(std::string(800, 'b')), std::string(800, 'b'));
  EXPECT_EQ(arena.capacity(), 3000u);
  // Reserving what is already there allocates nothing; beyond it, a block.
  arena.reserve(0);
  EXPECT_EQ(arena.capacity(), 3000u);
  EXPECT_EQ(arena.store("x"), "x");
  EXPECT_EQ(arena.capacity(), 3000u + 2048u);
}

}  // namespace
}  // namespace hami::k8s
