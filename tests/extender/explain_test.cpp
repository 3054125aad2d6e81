// Explain (Scheduler::explain) on config/demo-cluster.yaml: the verdicts,
// words, summary, JSON and text of docs/explain.md, byte for byte, and that
// explaining writes nothing.
#include "scheduling/explain.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "scheduling/scoring_weights.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;

std::string demo_cluster() {
  std::ifstream in(std::string(HAMI_SOURCE_DIR) + "/config/demo-cluster.yaml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The demo cluster with gpu-a100-1 locked by ml/train-0 ten seconds before
// the test clock's start.
std::string locked_demo_cluster() {
  std::string text = demo_cluster();
  const std::string node = "    name: gpu-a100-1\n";
  const std::string annotations = "    annotations:\n";
  const size_t at = text.find(annotations, text.find(node)) + annotations.size();
  text.insert(at, "      hami.io/mutex.lock: 2025-06-15T15:06:30Z,ml,train-0\n");
  return text;
}

const k8s::PodModel& demo_infer(const SchedulingEnv& env) {
  return *env.cluster->pod("ml", "demo-infer")->model;
}

// One GPU of 50000 MiB: more than any GPU of the demo cluster has.
k8s::PodModel big_pod() {
  return pod_from_json(pod_json("ml", "big", "uid-big",
                                {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "50000"}}}));
}

TEST(Explain, DemoInferFitsJson) {
  SchedulingEnv env(demo_cluster());
  EXPECT_EQ(
      scheduling::explanation_json(env.scheduler->explain(demo_infer(env))),
      R"x({"pod":"ml/demo-infer","policies":{"node":"binpack","gpu":"spread"},"summary":"4 of 6 nodes fit; best gpu-a100-1 (score 4)","nodes":[{"name":"gpu-a100-1","fits":true,"score":4,"rank":1,"chosen":["GPU-1a2b3c4d-0001-4000-8000-a10000000001"],"devices":[{"id":"GPU-1a2b3c4d-0001-4000-8000-a10000000000","index":0,"fits":true,"reason":"","detail":"needs 8000 MiB, 24576 MiB free; needs 30 % cores, 60 % free"},{"id":"GPU-1a2b3c4d-0001-4000-8000-a10000000001","index":1,"fits":true,"reason":"","detail":"needs 8000 MiB, 40960 MiB free; needs 30 % cores, 100 % free"},{"id":"GPU-1a2b3c4d-0001-4000-8000-a10000000002","index":2,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 8000 MiB, 0 MiB free"},{"id":"GPU-1a2b3c4d-0001-4000-8000-a10000000003","index":3,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 8000 MiB, 0 MiB free"}]},{"name":"gpu-t4-0","fits":true,"score":2,"rank":2,"chosen":["GPU-2c6e9b1a-7d4f-4e8a-b3c5-d6e7f8091a2b"],"devices":[{"id":"GPU-ebe7c3f7-303d-558d-435e-99a160631fe4","index":0,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 8000 MiB, 7680 MiB free"},{"id":"GPU-2c6e9b1a-7d4f-4e8a-b3c5-d6e7f8091a2b","index":1,"fits":true,"reason":"","detail":"needs 8000 MiB, 15360 MiB free; needs 30 % cores, 100 % free"}]},{"name":"gpu-a100-mig-0","fits":true,"score":2,"rank":3,"chosen":["GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001"],"devices":[{"id":"GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00000","index":0,"fits":true,"reason":"","detail":"needs 8000 MiB, 20992 MiB free; needs 30 % cores, 58 % free"},{"id":"GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001","index":1,"fits":true,"reason":"","detail":"needs 8000 MiB, 40960 MiB free; needs 30 % cores, 100 % free"}]},{"name":"gpu-a100-0","fits":true,"score":1,"rank":4,"chosen":["GPU-8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d"],"devices":[{"id":"GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448","index":0,"fits":true,"reason":"","detail":"needs 8000 MiB, 20960 MiB free; needs 30 % cores, 50 % free"},{"id":"GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec","index":1,"fits":true,"reason":"","detail":"needs 8000 MiB, 40960 MiB free; needs 30 % cores, 100 % free"},{"id":"GPU-5d21a0e4-3c6f-4a5e-9b0d-2b3c4d5e6f70","index":2,"fits":true,"reason":"","detail":"needs 8000 MiB, 40960 MiB free; needs 30 % cores, 100 % free"},{"id":"GPU-8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d","index":3,"fits":true,"reason":"","detail":"needs 8000 MiB, 40960 MiB free; needs 30 % cores, 100 % free"}]},{"name":"cpu-0","fits":false,"reason":"node unregistered","detail":"no GPU registered","devices":[]},{"name":"gpu-mi300x-0","fits":false,"reason":"NodeInsufficientDevice","detail":"no NVIDIA device registered","devices":[]}]})x");
}

TEST(Explain, DemoInferFitsText) {
  SchedulingEnv env(demo_cluster());
  EXPECT_EQ(
      scheduling::explanation_text(env.scheduler->explain(demo_infer(env))),
      "pod ml/demo-infer  node policy binpack  gpu policy spread\n"
      "4 of 6 nodes fit; best gpu-a100-1 (score 4)\n"
      "\n"
      "gpu-a100-1  fits  score 4  rank 1\n"
      "  GPU  ID                                        FITS    REASON                  DETAIL\n"
      "  0    GPU-1a2b3c4d-0001-4000-8000-a10000000000  yes                             needs 8000 "
      "MiB, 24576 MiB free; needs 30 % cores, 60 % free\n"
      "  1    GPU-1a2b3c4d-0001-4000-8000-a10000000001  chosen                          needs 8000 "
      "MiB, 40960 MiB free; needs 30 % cores, 100 % free\n"
      "  2    GPU-1a2b3c4d-0001-4000-8000-a10000000002  no      CardInsufficientMemory  needs 8000 "
      "MiB, 0 MiB free\n"
      "  3    GPU-1a2b3c4d-0001-4000-8000-a10000000003  no      CardInsufficientMemory  needs 8000 "
      "MiB, 0 MiB free\n"
      "\n"
      "gpu-t4-0  fits  score 2  rank 2\n"
      "  GPU  ID                                        FITS    REASON                  DETAIL\n"
      "  0    GPU-ebe7c3f7-303d-558d-435e-99a160631fe4  no      CardInsufficientMemory  needs 8000 "
      "MiB, 7680 MiB free\n"
      "  1    GPU-2c6e9b1a-7d4f-4e8a-b3c5-d6e7f8091a2b  chosen                          needs 8000 "
      "MiB, 15360 MiB free; needs 30 % cores, 100 % free\n"
      "\n"
      "gpu-a100-mig-0  fits  score 2  rank 3\n"
      "  GPU  ID                                        FITS    REASON  DETAIL\n"
      "  0    GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00000  yes             needs 8000 MiB, 20992 MiB "
      "free; needs 30 % cores, 58 % free\n"
      "  1    GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001  chosen          needs 8000 MiB, 40960 MiB "
      "free; needs 30 % cores, 100 % free\n"
      "\n"
      "gpu-a100-0  fits  score 1  rank 4\n"
      "  GPU  ID                                        FITS    REASON  DETAIL\n"
      "  0    GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448  yes             needs 8000 MiB, 20960 MiB "
      "free; needs 30 % cores, 50 % free\n"
      "  1    GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec  yes             needs 8000 MiB, 40960 MiB "
      "free; needs 30 % cores, 100 % free\n"
      "  2    GPU-5d21a0e4-3c6f-4a5e-9b0d-2b3c4d5e6f70  yes             needs 8000 MiB, 40960 MiB "
      "free; needs 30 % cores, 100 % free\n"
      "  3    GPU-8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d  chosen          needs 8000 MiB, 40960 MiB "
      "free; needs 30 % cores, 100 % free\n"
      "\n"
      "cpu-0  does not fit: node unregistered\n"
      "  no GPU registered\n"
      "\n"
      "gpu-mi300x-0  does not fit: NodeInsufficientDevice\n"
      "  no NVIDIA device registered\n");
}

TEST(Explain, FitsNowhereJsonAndText) {
  SchedulingEnv env(demo_cluster());
  const auto e = env.scheduler->explain(big_pod());
  EXPECT_EQ(e.summary,
            "0 of 6 nodes: 4 insufficient memory (best: gpu-a100-0 GPU 1, short by 9040 MiB), 1 "
            "no GPU registered, 1 no NVIDIA device registered");
  EXPECT_EQ(
      scheduling::explanation_json(e),
      R"x({"pod":"ml/big","policies":{"node":"binpack","gpu":"spread"},"summary":"0 of 6 nodes: 4 insufficient memory (best: gpu-a100-0 GPU 1, short by 9040 MiB), 1 no GPU registered, 1 no NVIDIA device registered","nodes":[{"name":"cpu-0","fits":false,"reason":"node unregistered","detail":"no GPU registered","devices":[]},{"name":"gpu-a100-0","fits":false,"reason":"4/4 CardInsufficientMemory","detail":"no device fits: 4 insufficient memory","devices":[{"id":"GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448","index":0,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 20960 MiB free"},{"id":"GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec","index":1,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 40960 MiB free"},{"id":"GPU-5d21a0e4-3c6f-4a5e-9b0d-2b3c4d5e6f70","index":2,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 40960 MiB free"},{"id":"GPU-8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d","index":3,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 40960 MiB free"}]},{"name":"gpu-a100-1","fits":false,"reason":"4/4 CardInsufficientMemory","detail":"no device fits: 4 insufficient memory","devices":[{"id":"GPU-1a2b3c4d-0001-4000-8000-a10000000000","index":0,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 24576 MiB free"},{"id":"GPU-1a2b3c4d-0001-4000-8000-a10000000001","index":1,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 40960 MiB free"},{"id":"GPU-1a2b3c4d-0001-4000-8000-a10000000002","index":2,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 0 MiB free"},{"id":"GPU-1a2b3c4d-0001-4000-8000-a10000000003","index":3,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 0 MiB free"}]},{"name":"gpu-a100-mig-0","fits":false,"reason":"2/2 CardInsufficientMemory","detail":"no device fits: 2 insufficient memory","devices":[{"id":"GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00000","index":0,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 20992 MiB free"},{"id":"GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001","index":1,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 40960 MiB free"}]},{"name":"gpu-mi300x-0","fits":false,"reason":"NodeInsufficientDevice","detail":"no NVIDIA device registered","devices":[]},{"name":"gpu-t4-0","fits":false,"reason":"2/2 CardInsufficientMemory","detail":"no device fits: 2 insufficient memory","devices":[{"id":"GPU-ebe7c3f7-303d-558d-435e-99a160631fe4","index":0,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 7680 MiB free"},{"id":"GPU-2c6e9b1a-7d4f-4e8a-b3c5-d6e7f8091a2b","index":1,"fits":false,"reason":"CardInsufficientMemory","detail":"needs 50000 MiB, 15360 MiB free"}]}]})x");
  EXPECT_EQ(
      scheduling::explanation_text(e),
      "pod ml/big  node policy binpack  gpu policy spread\n"
      "0 of 6 nodes: 4 insufficient memory (best: gpu-a100-0 GPU 1, short by 9040 MiB), 1 no GPU "
      "registered, 1 no NVIDIA device registered\n"
      "\n"
      "cpu-0  does not fit: node unregistered\n"
      "  no GPU registered\n"
      "\n"
      "gpu-a100-0  does not fit: 4/4 CardInsufficientMemory\n"
      "  no device fits: 4 insufficient memory\n"
      "  GPU  ID                                        FITS  REASON                  DETAIL\n"
      "  0    GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448  no    CardInsufficientMemory  needs 50000 "
      "MiB, 20960 MiB free\n"
      "  1    GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec  no    CardInsufficientMemory  needs 50000 "
      "MiB, 40960 MiB free\n"
      "  2    GPU-5d21a0e4-3c6f-4a5e-9b0d-2b3c4d5e6f70  no    CardInsufficientMemory  needs 50000 "
      "MiB, 40960 MiB free\n"
      "  3    GPU-8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d  no    CardInsufficientMemory  needs 50000 "
      "MiB, 40960 MiB free\n"
      "\n"
      "gpu-a100-1  does not fit: 4/4 CardInsufficientMemory\n"
      "  no device fits: 4 insufficient memory\n"
      "  GPU  ID                                        FITS  REASON                  DETAIL\n"
      "  0    GPU-1a2b3c4d-0001-4000-8000-a10000000000  no    CardInsufficientMemory  needs 50000 "
      "MiB, 24576 MiB free\n"
      "  1    GPU-1a2b3c4d-0001-4000-8000-a10000000001  no    CardInsufficientMemory  needs 50000 "
      "MiB, 40960 MiB free\n"
      "  2    GPU-1a2b3c4d-0001-4000-8000-a10000000002  no    CardInsufficientMemory  needs 50000 "
      "MiB, 0 MiB free\n"
      "  3    GPU-1a2b3c4d-0001-4000-8000-a10000000003  no    CardInsufficientMemory  needs 50000 "
      "MiB, 0 MiB free\n"
      "\n"
      "gpu-a100-mig-0  does not fit: 2/2 CardInsufficientMemory\n"
      "  no device fits: 2 insufficient memory\n"
      "  GPU  ID                                        FITS  REASON                  DETAIL\n"
      "  0    GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00000  no    CardInsufficientMemory  needs 50000 "
      "MiB, 20992 MiB free\n"
      "  1    GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001  no    CardInsufficientMemory  needs 50000 "
      "MiB, 40960 MiB free\n"
      "\n"
      "gpu-mi300x-0  does not fit: NodeInsufficientDevice\n"
      "  no NVIDIA device registered\n"
      "\n"
      "gpu-t4-0  does not fit: 2/2 CardInsufficientMemory\n"
      "  no device fits: 2 insufficient memory\n"
      "  GPU  ID                                        FITS  REASON                  DETAIL\n"
      "  0    GPU-ebe7c3f7-303d-558d-435e-99a160631fe4  no    CardInsufficientMemory  needs 50000 "
      "MiB, 7680 MiB free\n"
      "  1    GPU-2c6e9b1a-7d4f-4e8a-b3c5-d6e7f8091a2b  no    CardInsufficientMemory  needs 50000 "
      "MiB, 15360 MiB free\n");
}

TEST(Explain, LockedNodeDoesNotFit) {
  SchedulingEnv env(locked_demo_cluster());
  EXPECT_EQ(
      scheduling::explanation_text(env.scheduler->explain(demo_infer(env))),
      "pod ml/demo-infer  node policy binpack  gpu policy spread\n"
      "3 of 6 nodes fit; best gpu-t4-0 (score 2)\n"
      "\n"
      "gpu-t4-0  fits  score 2  rank 1\n"
      "  GPU  ID                                        FITS    REASON                  DETAIL\n"
      "  0    GPU-ebe7c3f7-303d-558d-435e-99a160631fe4  no      CardInsufficientMemory  needs 8000 "
      "MiB, 7680 MiB free\n"
      "  1    GPU-2c6e9b1a-7d4f-4e8a-b3c5-d6e7f8091a2b  chosen                          needs 8000 "
      "MiB, 15360 MiB free; needs 30 % cores, 100 % free\n"
      "\n"
      "gpu-a100-mig-0  fits  score 2  rank 2\n"
      "  GPU  ID                                        FITS    REASON  DETAIL\n"
      "  0    GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00000  yes             needs 8000 MiB, 20992 MiB "
      "free; needs 30 % cores, 58 % free\n"
      "  1    GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001  chosen          needs 8000 MiB, 40960 MiB "
      "free; needs 30 % cores, 100 % free\n"
      "\n"
      "gpu-a100-0  fits  score 1  rank 3\n"
      "  GPU  ID                                        FITS    REASON  DETAIL\n"
      "  0    GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d1448  yes             needs 8000 MiB, 20960 MiB "
      "free; needs 30 % cores, 50 % free\n"
      "  1    GPU-00552014-5c87-89ac-b1a6-7b53aa24b0ec  yes             needs 8000 MiB, 40960 MiB "
      "free; needs 30 % cores, 100 % free\n"
      "  2    GPU-5d21a0e4-3c6f-4a5e-9b0d-2b3c4d5e6f70  yes             needs 8000 MiB, 40960 MiB "
      "free; needs 30 % cores, 100 % free\n"
      "  3    GPU-8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d  chosen          needs 8000 MiB, 40960 MiB "
      "free; needs 30 % cores, 100 % free\n"
      "\n"
      "cpu-0  does not fit: node unregistered\n"
      "  no GPU registered\n"
      "\n"
      "gpu-a100-1  does not fit: node gpu-a100-1 has been locked within 5m0s: node lock "
      "contention\n"
      "  node locked by ml/train-0 since 2025-06-15T15:06:30Z\n"
      "  GPU  ID                                        FITS  REASON                  DETAIL\n"
      "  0    GPU-1a2b3c4d-0001-4000-8000-a10000000000  yes                           needs 8000 "
      "MiB, 24576 MiB free; needs 30 % cores, 60 % free\n"
      "  1    GPU-1a2b3c4d-0001-4000-8000-a10000000001  yes                           needs 8000 "
      "MiB, 40960 MiB free; needs 30 % cores, 100 % free\n"
      "  2    GPU-1a2b3c4d-0001-4000-8000-a10000000002  no    CardInsufficientMemory  needs 8000 "
      "MiB, 0 MiB free\n"
      "  3    GPU-1a2b3c4d-0001-4000-8000-a10000000003  no    CardInsufficientMemory  needs 8000 "
      "MiB, 0 MiB free\n"
      "\n"
      "gpu-mi300x-0  does not fit: NodeInsufficientDevice\n"
      "  no NVIDIA device registered\n");
  const std::vector<std::string> two{"gpu-a100-1", "cpu-0"};
  EXPECT_EQ(env.scheduler->explain(demo_infer(env), two).summary,
            "0 of 2 nodes: 1 locked, 1 no GPU registered");
}

TEST(Explain, ExpiredLockAndOwnLockDoNotCount) {
  SchedulingEnv env(locked_demo_cluster());
  env.now = kStartTime + 300;  // 310 s after the lock: expired (5m0s)
  const std::vector<std::string> one{"gpu-a100-1"};
  EXPECT_EQ(env.scheduler->explain(demo_infer(env), one).summary,
            "1 of 1 nodes fit; best gpu-a100-1 (score 4)");
  // The lock's owner asking: its own lock keeps nothing out.
  SchedulingEnv own(locked_demo_cluster());
  const auto train = pod_from_json(pod_json(
      "ml", "train-0", "uid-other", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}}}));
  EXPECT_TRUE(own.scheduler->explain(train, one).nodes.at(0).fits);
}

TEST(Explain, TypeSelectors) {
  SchedulingEnv env(demo_cluster());
  const auto typed = pod_from_json(pod_json(
      "ml", "typed", "uid-typed", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}}}, {},
      R"({"nvidia.com/use-gputype":"A100"})"));
  const std::vector<std::string> t4{"gpu-t4-0"};
  EXPECT_EQ(
      scheduling::explanation_json(env.scheduler->explain(typed, t4)),
      R"x({"pod":"ml/typed","policies":{"node":"binpack","gpu":"spread"},"summary":"0 of 1 nodes: 1 type excluded","nodes":[{"name":"gpu-t4-0","fits":false,"reason":"2/2 CardTypeMismatch","detail":"no device fits: 2 type excluded","devices":[{"id":"GPU-ebe7c3f7-303d-558d-435e-99a160631fe4","index":0,"fits":false,"reason":"CardTypeMismatch","detail":"type NVIDIA-Tesla T4 excluded by nvidia.com/use-gputype=A100"},{"id":"GPU-2c6e9b1a-7d4f-4e8a-b3c5-d6e7f8091a2b","index":1,"fits":false,"reason":"CardTypeMismatch","detail":"type NVIDIA-Tesla T4 excluded by nvidia.com/use-gputype=A100"}]}]})x");
  const auto excluded = pod_from_json(pod_json(
      "ml", "notyped", "uid-notyped", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}}},
      {}, R"({"nvidia.com/nouse-gputype":"a100, t4"})"));
  const auto e = env.scheduler->explain(excluded);
  EXPECT_EQ(e.summary,
            "0 of 6 nodes: 4 type excluded, 1 no GPU registered, 1 no NVIDIA device registered");
  EXPECT_EQ(e.nodes.at(1).name, "gpu-a100-0");
  EXPECT_EQ(e.nodes.at(1).devices.at(0).detail,
            "type NVIDIA A100-SXM4-40GB excluded by nvidia.com/nouse-gputype=a100, t4");
}

TEST(Explain, PodPoliciesAndUnknownNodes) {
  SchedulingEnv env(demo_cluster());
  const auto pod = pod_from_json(pod_json(
      "ml", "whole", "uid-whole", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpucores", "100"}}}, {},
      R"({"hami.io/gpu-scheduler-policy":"binpack","hami.io/node-scheduler-policy":"spread"})"));
  const std::vector<std::string> names{"gpu-a100-0", "gpu-t4-0", "nowhere"};
  const auto e = env.scheduler->explain(pod, names);
  EXPECT_EQ(e.node_policy, "spread");
  EXPECT_EQ(e.gpu_policy, "binpack");
  EXPECT_EQ(e.summary, "2 of 3 nodes fit; best gpu-a100-0 (score 9)");
  ASSERT_EQ(e.nodes.size(), 3u);
  EXPECT_EQ(e.nodes[1].name, "gpu-t4-0");
  EXPECT_EQ(e.nodes[1].rank, 2u);
  EXPECT_EQ(e.nodes[1].devices.at(0).detail, "needs 15360 MiB, 7680 MiB free");
  EXPECT_EQ(e.nodes[2].name, "nowhere");
  EXPECT_EQ(e.nodes[2].reason, "node unregistered");
}

TEST(Explain, PodWithoutDevicesAndUnreadablePod) {
  SchedulingEnv env(demo_cluster());
  const auto plain = pod_from_json(pod_json("ml", "plain", "uid-plain", {{}}));
  const auto e = env.scheduler->explain(plain);
  EXPECT_EQ(e.summary,
            "the pod asks for no device the scheduler manages: every node passes filter");
  EXPECT_EQ(e.nodes.size(), 6u);
  const auto weights = pod_from_json(pod_json(
      "ml", "w", "uid-w", {{{"nvidia.com/gpu", "1"}}}, {},
      R"({")" + std::string(scheduling::kDeviceScoringWeightsAnnotation) + R"(":"nonsense"})"));
  const auto bad = env.scheduler->explain(weights);
  EXPECT_NE(bad.error, "");
  EXPECT_TRUE(bad.nodes.empty());
}

TEST(Explain, WritesNothing) {
  SchedulingEnv env(locked_demo_cluster());
  const std::string before = env.cluster->to_json();
  const size_t events = env.cluster->events().size();
  const size_t charges = env.scheduler->ledger().read()->pod_count();
  (void)env.scheduler->explain(demo_infer(env));
  (void)env.scheduler->explain(big_pod());
  EXPECT_EQ(env.cluster->to_json(), before);
  EXPECT_EQ(env.cluster->events().size(), events);
  EXPECT_EQ(env.scheduler->ledger().read()->pod_count(), charges);
}

}  // namespace
