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
            "0 of 6 nodes: 4 insufficient memory (best: gpu-a100-0 GPU 1, short by 9040 MiB), 2 "
            "no GPU registered");
  const auto piped = run(
      {"/bin/sh", "-c", "'" + kBinary + "' explain --config '" + config + "' - < '" + file + "'"});
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, r.out);
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
  EXPECT_EQ(no_file.err, "explain: " + (dir / "nope.yaml").string() + ": cannot open the pod\n");
  const auto not_pod = write("node.yaml", "kind: Node\nmetadata: {name: n}\n");
  const auto wrong = run({kBinary, "explain", "--config", config, not_pod});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("explain: " + not_pod), std::string::npos) << wrong.err;
}

}  // namespace
}  // namespace hami::test
