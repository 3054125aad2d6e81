// `hami-scheduler simulate` (docs/simulate.md):
//
//   hami-scheduler simulate [--config FILE] [--cluster file:PATH | kubernetes]
//       --workload PODS.yaml [--policies NODE/GPU[,NODE/GPU...]]
//       [--output text|json] [--trace]
//
// Exit codes: 0 simulated (unplaced pods are a result, not a failure),
// 1 the config, plugins, cluster or workload could not be used, 2 usage.
#include <chrono>
#include <exception>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>

#include "ops/input_file.hpp"
#include "ops/known_namespaces.hpp"
#include "ops/memory_budget.hpp"
#include "ops/ops_context.hpp"
#include "ops/progress_line.hpp"
#include "ops/simulate_report.hpp"
#include "ops/simulate_run.hpp"
#include "ops/workload_parser.hpp"

namespace hami::ops {

namespace {

constexpr std::string_view kUsage =
    "usage: hami-scheduler simulate [OPTIONS] --workload PODS.yaml [--policies NODE/GPU,...] "
    "[--output text|json] [--trace]\n";

constexpr std::string_view kAbout =
    "\nPlaces a workload pod by pod through the real admission, filter, prioritize and bind,\n"
    "once per node/GPU policy pair, each on a fresh in-memory copy of the cluster, and\n"
    "compares the pairs. Nothing is written to a cluster (docs/simulate.md).\n"
    "\nOptions:\n"
    "  --workload FILE        the pods to place: YAML or JSON Pods, Deployments, Jobs, Lists\n"
    "  --policies NODE/GPU,.. the policy pairs to compare, e.g. binpack/spread,spread/binpack\n"
    "                         (default: the config's)\n"
    "  --output text|json     a table (default) or one JSON object\n"
    "  --trace                one line per pod and pair: its node and devices, or why not\n";

constexpr std::string_view kExample =
    "\nExample:\n"
    "  hami-scheduler simulate --config config/dev.yaml --workload pods.yaml \\\n"
    "      --policies binpack/spread,spread/binpack --trace\n"
    "\nExit codes: 0 simulated (unplaced pods are a result), 1 failed, 2 usage.\n";

// One warning per namespace of the workload the cluster does not have.
void warn_missing_namespaces(const cluster::ClusterState& cluster,
                             std::span<const WorkloadPod> pods, std::ostream& err) {
  const auto known = known_namespaces(cluster);
  std::map<std::string_view, size_t> missing;
  for (const WorkloadPod& pod : pods) {
    if (!known.contains(pod.namespace_))
      ++missing[pod.namespace_];
  }
  for (const auto& [ns, count] : missing)
    err << "simulate: warning: " << missing_namespace_warning(ns, count) << "\n";
}

}  // namespace

int run_simulate_command(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  OpsOptions options;
  std::string workload;
  std::string output = "text";
  SimulateOptions simulate_options;
  try {
    const std::vector<std::string> rest = take_ops_options(args, options);
    for (size_t i = 0; i < rest.size();) {
      if (auto w = option_value(rest, i, "workload")) {
        workload = std::move(*w);
      } else if (auto p = option_value(rest, i, "policies")) {
        simulate_options.pairs = parse_policy_pairs(*p);
      } else if (auto o = option_value(rest, i, "output")) {
        if (*o != "text" && *o != "json")
          throw UsageError("--output: expected text or json, got \"" + *o + "\"");
        output = std::move(*o);
      } else if (rest[i] == "--trace") {
        simulate_options.trace = true;
        ++i;
      } else if (rest[i] == "--help" || rest[i] == "-h") {
        out << kUsage << kAbout << kOpsOptionsHelp << kExample;
        return 0;
      } else {
        throw UsageError("unexpected argument \"" + rest[i] + "\"");
      }
    }
    if (workload.empty())
      throw UsageError("--workload FILE is required");
  } catch (const UsageError& e) {
    err << "simulate: " << e.what() << "\n"
        << kUsage << "Run 'hami-scheduler simulate --help' for the options.\n";
    return 2;
  }
  try {
    const std::vector<WorkloadPod> pods =
        parse_workload(read_input_file(workload, "workload"), workload);
    const log::Logger logger(ops_log_level(options), log::Format::text, &err);
    const auto ctx = OpsContext::open(options, logger);
    warn_missing_namespaces(ctx->cluster(), pods, err);
    if (const auto available = available_memory())
      check_workload_memory(pods, *available);
    std::optional<ProgressLine> progress;
    if (is_terminal_stderr(err)) {
      progress.emplace(err, std::chrono::milliseconds(200),
                       [] { return std::chrono::steady_clock::now(); });
      simulate_options.progress = [&progress](std::string_view pair, size_t done, size_t total) {
        progress->update(pair, done, total);
      };
    }
    const SimulationResult result = simulate(*ctx, pods, simulate_options);
    progress.reset();  // the line is erased before the report
    out << (output == "json" ? simulation_json(result, simulate_options.trace)
                             : simulation_text(result, simulate_options.trace));
    out.flush();
    return out.good() ? 0 : 1;
  } catch (const std::exception& e) {
    err << "simulate: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace hami::ops
