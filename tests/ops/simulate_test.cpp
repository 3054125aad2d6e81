// simulate end to end on the demo clusters: the text table, the JSON and
// the trace, exactly (tests/ops/data/*.expected), and its errors.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ops/simulate_run.hpp"
#include "ops_test_support.hpp"

namespace hami::ops {
namespace {

using test::data_path;
using test::demo_args;
using test::run_command;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> with(std::vector<std::string> args, std::vector<std::string> more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(Simulate, DemoClusterTwoPairsTextWithTrace) {
  const auto run =
      run_command("simulate", with(demo_args("dev", "demo-cluster"),
                                   {"--workload", data_path("demo-workload.yaml"), "--policies",
                                    "binpack/spread,spread/binpack", "--trace"}));
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.out, read_file(data_path("demo-simulate.txt.expected")));
}

TEST(Simulate, DemoClusterJson) {
  const auto run =
      run_command("simulate", with(demo_args("dev", "demo-cluster"),
                                   {"--workload", data_path("demo-workload.yaml"), "--policies",
                                    "binpack/spread,spread/binpack", "--output", "json"}));
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.out, read_file(data_path("demo-simulate.json.expected")));
}

TEST(Simulate, DemoClusterJsonTraceOfTheDefaultPair) {
  const auto run = run_command("simulate", with(demo_args("dev", "demo-cluster"),
                                                {"--workload", data_path("demo-workload.yaml"),
                                                 "--output=json", "--trace"}));
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.out, read_file(data_path("demo-simulate-trace.json.expected")));
}

// Cambricon takes its own node lock (ABI 1.2): three MLU pods in a row on
// one node are placed only because each emulated device plugin released it.
TEST(Simulate, VendorsClusterOwnNodeLockIsReleasedBetweenBinds) {
  const auto run = run_command("simulate", with(demo_args("vendors", "vendors-cluster"),
                                                {"--workload", data_path("vendors-workload.yaml"),
                                                 "--policies", "binpack/binpack", "--trace"}));
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.out, read_file(data_path("vendors-simulate.txt.expected")));
}

// Biren and Vastai name no memory or core resource: their allocations
// charge 0 MiB and 0 cores, yet each pod may use the whole device, as
// explain says it needs. The figures count the whole device.
TEST(Simulate, UnmeteredVendorsPlacementsHoldTheWholeDevice) {
  const auto run =
      run_command("simulate", with(demo_args("vendors", "vendors-cluster"),
                                   {"--workload", data_path("vendors-unmetered-workload.yaml"),
                                    "--output", "json", "--trace"}));
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(run.code, 0);
  EXPECT_NE(run.out.find(R"({"pod":"ml/biren-0","outcome":"placed","node":"biren-0","score":0,)"
                         R"("devices":[{"vendor":"biren","id":"BR-106C-0001","memoryMiB":65536,)"
                         R"("cores":100}]})"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(R"({"pod":"ml/va-0","outcome":"placed","node":"va-0","score":0,)"
                         R"("devices":[{"vendor":"vastai","id":"va1-die1","memoryMiB":16384,)"
                         R"("cores":100}]})"),
            std::string::npos)
      << run.out;
  // Three devices held before (21.02 % of their memory), now two more held
  // whole: (37887 + 81920) / (180241 + 81920).
  EXPECT_NE(run.out.find(R"("gpus":{"total":24,"free":19,"used":5},"memoryUtilisation":0.457,)"
                         R"("coreUtilisation":0.619,"medianRequestMiB":65536,)"),
            std::string::npos)
      << run.out;
}

// Storing a workload pod named like a pod of the cluster would replace
// that pod and free its devices: refused, naming the pods.
TEST(Simulate, WorkloadPodsNamedLikePodsOfTheClusterAreRefused) {
  auto run = run_command("simulate", with(demo_args("dev", "demo-cluster"),
                                          {"--workload", data_path("name-clash-workload.yaml")}));
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err,
            "simulate: 2 workload pods have names of pods of the cluster: ml/train-0 (on "
            "gpu-a100-1), ml/demo-infer (pending); placing them would replace those pods and free "
            "what they hold: rename them in the workload\n");
}

// Kubernetes refuses pods in a namespace that does not exist: simulated
// all the same, with one warning per namespace.
TEST(Simulate, NamespacesTheClusterDoesNotHaveAreWarned) {
  const auto run =
      run_command("simulate", with(demo_args("dev", "demo-cluster"),
                                   {"--workload", data_path("missing-namespace-workload.yaml")}));
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.err,
            "simulate: warning: namespace \"nope\" does not exist in the cluster: Kubernetes "
            "would refuse the 2 pods; they are scheduled as if the namespace existed\n");
  EXPECT_NE(run.out.find("placed                   3\n"), std::string::npos) << run.out;
}

TEST(Simulate, RunsAreRepeatableAndIndependentPerPair) {
  // The same pair twice gives the same column: each pair starts from a
  // fresh copy of the cluster.
  const auto run =
      run_command("simulate", with(demo_args("dev", "demo-cluster"),
                                   {"--workload", data_path("demo-workload.yaml"), "--policies",
                                    "binpack/spread,binpack/spread", "--output", "json"}));
  ASSERT_EQ(run.code, 0);
  const size_t second = run.out.find("{\"nodePolicy\"", run.out.find("{\"nodePolicy\"") + 1);
  ASSERT_NE(second, std::string::npos);
  const std::string first_pair =
      run.out.substr(run.out.find("{\"nodePolicy\""), second - run.out.find("{\"nodePolicy\""));
  EXPECT_EQ(first_pair.substr(0, first_pair.size() - 1),
            run.out.substr(second, first_pair.size() - 1));
}

TEST(Simulate, UsageErrors) {
  auto run = run_command("simulate", demo_args("dev", "demo-cluster"));
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err.substr(0, run.err.find('\n')), "simulate: --workload FILE is required");
  run = run_command("simulate", with(demo_args("dev", "demo-cluster"),
                                     {"--workload", "w", "--policies", "binpack"}));
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err.substr(0, run.err.find('\n')),
            "simulate: --policies: expected NODE/GPU[,NODE/GPU...], got \"binpack\"");
  run = run_command(
      "simulate", with(demo_args("dev", "demo-cluster"), {"--workload", "w", "--output", "yaml"}));
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err.substr(0, run.err.find('\n')),
            "simulate: --output: expected text or json, got \"yaml\"");
  run = run_command("simulate", {"--workload"});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err.substr(0, run.err.find('\n')), "simulate: --workload: a value is needed");
  run = run_command("simulate", {"--config", "a", "--config=b", "--workload", "w"});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err.substr(0, run.err.find('\n')), "simulate: --config: given twice");
}

TEST(Simulate, Failures) {
  auto run = run_command("simulate", with(demo_args("dev", "demo-cluster"),
                                          {"--workload", data_path("missing.yaml")}));
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "simulate: " + data_path("missing.yaml") +
                         ": cannot open the workload: No such file or directory\n");
  run = run_command(
      "simulate", with(demo_args("dev", "demo-cluster"),
                       {"--workload", data_path("demo-workload.yaml"), "--policies", "x/spread"}));
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "simulate: node policy \"x\": no scheduling plugin declares it\n");
  run = run_command(
      "simulate", with(demo_args("dev", "demo-cluster"),
                       {"--workload", data_path("demo-workload.yaml"), "--policies", "spread/y"}));
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "simulate: GPU policy \"y\": no scheduling plugin declares it\n");
}

TEST(Simulate, PolicyPairs) {
  const auto pairs = parse_policy_pairs("binpack/spread,spread/numa,binpack");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[1].node, "spread");
  EXPECT_EQ(pairs[1].gpu, "numa,binpack");  // a device policy chain keeps its commas
  EXPECT_THROW(parse_policy_pairs("binpack"), UsageError);
  EXPECT_THROW(parse_policy_pairs("binpack/spread,"), UsageError);
  EXPECT_THROW(parse_policy_pairs("a/b/c"), UsageError);
}

}  // namespace
}  // namespace hami::ops
