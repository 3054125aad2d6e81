// `hami-scheduler simulate` (docs/simulate.md):
//
//   hami-scheduler simulate [--config FILE] [--cluster file:PATH | kubernetes]
//       --workload PODS.yaml [--policies NODE/GPU[,NODE/GPU...]]
//       [--output text|json] [--trace]
//
// Exit codes: 0 simulated (unplaced pods are a result, not a failure),
// 1 the config, plugins, cluster or workload could not be used, 2 usage.
#include <exception>
#include <fstream>
#include <map>
#include <ostream>
#include <span>
#include <sstream>
#include <string>

#include "ops/known_namespaces.hpp"
#include "ops/ops_context.hpp"
#include "ops/simulate_report.hpp"
#include "ops/simulate_run.hpp"
#include "ops/workload_parser.hpp"

namespace hami::ops {

namespace {

constexpr std::string_view kUsage =
    "usage: hami-scheduler simulate [--config FILE] [--cluster file:PATH | kubernetes] "
    "--workload PODS.yaml [--policies NODE/GPU[,NODE/GPU...]] [--output text|json] "
    "[--trace]\n";

std::string read_workload(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw WorkloadError(path + ": cannot open the workload");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw WorkloadError(path + ": cannot read the workload");
  return text.str();
}

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
        out << kUsage;
        return 0;
      } else {
        throw UsageError("unexpected argument \"" + rest[i] + "\"");
      }
    }
    if (workload.empty())
      throw UsageError("--workload FILE is required");
  } catch (const UsageError& e) {
    err << "simulate: " << e.what() << "\n" << kUsage;
    return 2;
  }
  try {
    const std::vector<WorkloadPod> pods = parse_workload(read_workload(workload), workload);
    const log::Logger logger(log::Level::warn, log::Format::text, &err);
    const auto ctx = OpsContext::open(options, logger);
    warn_missing_namespaces(ctx->cluster(), pods, err);
    const SimulationResult result = simulate(*ctx, pods, simulate_options);
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
