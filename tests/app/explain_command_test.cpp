// `hami-scheduler explain`: the built binary on config/demo-cluster.yaml —
// its standard output byte for byte, its exit codes and messages.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "child_process.hpp"

namespace hami::test {
namespace {

const std::string kBinary = HAMI_SCHEDULER_BINARY;
const std::string kPluginDir = HAMI_PLUGIN_DIR;
const std::string kSourceDir = HAMI_SOURCE_DIR;

class ExplainCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hami-explain-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
    config =
        write("explain.yaml",
              "tls:\n  selfSigned: true\nplugins:\n  directory: " + kPluginDir +
                  "\n  allowWritable: true\n  devices:\n    - {name: nvidia, library: nvidia.so}\n"
                  "    - {name: amd, library: amd.so}\n  scheduling:\n"
                  "    - {name: hami-policies, library: hami-policies.so}\n"
                  "cluster:\n  source: file\n  file: " +
                  kSourceDir + "/config/demo-cluster.yaml\n");
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
  std::filesystem::path dir;
  std::string config;
};

TEST_F(ExplainCommand, PodOfTheClusterAsJson) {
  const auto r =
      run({kBinary, "explain", "--config", config, "--pod", "rocm/demo-rocm", "--output", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      R"x({"pod":"rocm/demo-rocm","policies":{"node":"binpack","gpu":"spread"},)x"
      R"x("summary":"1 of 6 nodes fit; best gpu-mi300x-0 (score 2)","nodes":[)x"
      R"x({"name":"gpu-mi300x-0","fits":true,"score":2,"rank":1,)x"
      R"x("chosen":["AMD-MI300X-9f2c1b7e-2200"],"devices":[)x"
      R"x({"id":"AMD-MI300X-9f2c1b7e-0c00","index":0,"fits":false,)x"
      R"x("reason":"CardInsufficientCore",)x"
      R"x("detail":"cores: asks 100, 152 of 304 compute units free"},)x"
      R"x({"id":"AMD-MI300X-9f2c1b7e-2200","index":1,"fits":true,"reason":"",)x"
      R"x("detail":"needs 32768 MiB, 196608 MiB free; cores: asks 100, 304 of 304 compute units free"}]},)x"
      R"x({"name":"cpu-0","fits":false,"reason":"node unregistered",)x"
      R"x("detail":"no GPU registered","devices":[]},)x"
      R"x({"name":"gpu-a100-0","fits":false,"reason":"NodeInsufficientDevice",)x"
      R"x("detail":"no AMD device registered","devices":[]},)x"
      R"x({"name":"gpu-a100-1","fits":false,"reason":"NodeInsufficientDevice",)x"
      R"x("detail":"no AMD device registered","devices":[]},)x"
      R"x({"name":"gpu-a100-mig-0","fits":false,"reason":"NodeInsufficientDevice",)x"
      R"x("detail":"no AMD device registered","devices":[]},)x"
      R"x({"name":"gpu-t4-0","fits":false,"reason":"NodeInsufficientDevice",)x"
      R"x("detail":"no AMD device registered","devices":[]}]})x"
      "\n");
}

TEST_F(ExplainCommand, PodFileAndStandardInputAsText) {
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: ml}\nspec:\n  containers:\n"
      "  - name: c\n    resources:\n      limits: {nvidia.com/gpu: 1, nvidia.com/gpumem: 50000}\n";
  const auto file = write("big.yaml", pod);
  const auto r = run({kBinary, "explain", "--config", config, file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find("\n\n")),
            "pod ml/big  node policy binpack  gpu policy spread\n"
            "0 of 6 nodes: 4 insufficient memory (best: gpu-a100-0 GPU 1, short by 9040 MiB), 1 "
            "no GPU registered, 1 no NVIDIA device registered");
  const auto piped = run(
      {"/bin/sh", "-c", "'" + kBinary + "' explain --config '" + config + "' - < '" + file + "'"});
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, r.out);
}

// explain takes one Pod; a workload object is pointed to simulate.
TEST_F(ExplainCommand, AWorkloadObjectIsPointedToSimulate) {
  const auto file = write("deploy.yaml",
                          "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: "
                          "ml}\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n"
                          "      - {name: c, resources: {limits: {nvidia.com/gpu: 1}}}\n");
  const auto r = run({kBinary, "explain", "--config", config, file});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "explain: " + file +
                       ": document 1 (Deployment d): explain takes one Pod, not a Deployment; to "
                       "place the pods of a workload, run hami-scheduler simulate --workload " +
                       file + " (docs/simulate.md)\n");
}

// Kubernetes refuses a pod in a namespace that does not exist: explained
// all the same, with a warning.
TEST_F(ExplainCommand, ANamespaceTheClusterDoesNotHaveIsWarned) {
  const std::string pod =
      "kind: Pod\nmetadata: {name: p, namespace: NS}\nspec:\n  containers:\n"
      "  - {name: c, resources: {limits: {nvidia.com/gpu: 1}}}\n";
  const auto missing =
      run({kBinary, "explain", "--config", config,
           write("missing.yaml", std::string(pod).replace(pod.find("NS"), 2, "nope"))});
  EXPECT_EQ(missing.exit_code, 0) << missing.err;
  EXPECT_EQ(missing.err,
            "explain: warning: namespace \"nope\" does not exist in the cluster: Kubernetes would "
            "refuse the pod; it is scheduled as if the namespace existed\n");
  EXPECT_EQ(missing.out.substr(0, missing.out.find('\n')),
            "pod nope/p  node policy binpack  gpu policy spread");
  const auto known = run({kBinary, "explain", "--config", config,
                          write("known.yaml", std::string(pod).replace(pod.find("NS"), 2, "ml"))});
  EXPECT_EQ(known.exit_code, 0) << known.err;
  EXPECT_EQ(known.err, "");
}

// A vendor naming no core resource (Vastai) does not meter cores; Ascend's
// devices register 20 AI cores, not percent.
TEST_F(ExplainCommand, CoreWordsOfVendorsWithoutPercentDevices) {
  const std::vector<std::string> vendors = {"--config", kSourceDir + "/config/vendors.yaml",
                                            "--plugin-dir", kPluginDir};
  auto args = std::vector<std::string>{kBinary, "explain"};
  args.insert(args.end(), vendors.begin(), vendors.end());
  auto va = args;
  va.insert(va.end(), {"--pod", "ml/demo-va"});
  const auto vastai = run(va);
  EXPECT_EQ(vastai.exit_code, 0) << vastai.err;
  EXPECT_NE(vastai.out.find("  0    va0-die0  yes             needs 16384 MiB, 16384 MiB free; "
                            "cores not metered\n"),
            std::string::npos)
      << vastai.out;
  auto npu = args;
  npu.insert(npu.end(), {"--pod", "ml/demo-npu"});
  const auto ascend = run(npu);
  EXPECT_EQ(ascend.exit_code, 0) << ascend.err;
  EXPECT_NE(ascend.out.find("  1    NPU-910B3-1  yes             needs 16384 MiB, 65536 MiB free; "
                            "cores: asks 0, 20 of 20 cores free\n"),
            std::string::npos)
      << ascend.out;
}

TEST_F(ExplainCommand, UsageAndErrors) {
  const auto none = run({kBinary, "explain", "--config", config});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err.substr(0, none.err.find('\n')),
            "explain: name the pod: POD.yaml, - (standard input) or --pod NS/NAME");
  const auto output =
      run({kBinary, "explain", "--config", config, "--pod", "ml/x", "--output", "xml"});
  EXPECT_EQ(output.exit_code, 2);
  EXPECT_EQ(output.err.substr(0, output.err.find('\n')),
            "explain: --output: expected text or json, got \"xml\"");
  const auto bad_name = run({kBinary, "explain", "--config", config, "--pod", "demo-infer"});
  EXPECT_EQ(bad_name.exit_code, 2);
  const auto missing = run({kBinary, "explain", "--config", config, "--pod", "ml/ghost"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "explain: pod ml/ghost not found in the cluster\n");
  const auto no_file = run({kBinary, "explain", "--config", config, (dir / "nope.yaml").string()});
  EXPECT_EQ(no_file.exit_code, 1);
  EXPECT_EQ(no_file.err, "explain: " + (dir / "nope.yaml").string() +
                             ": cannot open the pod: No such file or directory\n");
  const auto not_pod = write("node.yaml", "kind: Node\nmetadata: {name: n}\n");
  const auto wrong = run({kBinary, "explain", "--config", config, not_pod});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("explain: " + not_pod), std::string::npos) << wrong.err;
}

}  // namespace
}  // namespace hami::test
