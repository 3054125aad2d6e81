#include "ops/explain_command.hpp"

#include <rapidjson/document.h>

#include <exception>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "k8s/pod.hpp"
#include "ops/input_file.hpp"
#include "ops/known_namespaces.hpp"
#include "ops/ops_context.hpp"
#include "ops/workload_parser.hpp"
#include "scheduling/explain.hpp"

namespace hami::ops {

namespace {

constexpr std::string_view kUsage =
    "usage: hami-scheduler explain [OPTIONS] (POD.yaml | - | --pod NS/NAME) "
    "[--output text|json]\n";

constexpr std::string_view kAbout =
    "\nWhy one pod fits each node or not, per node and device, from the core that schedules:\n"
    "filter's fit, prioritize's score and bind's node-lock check. Nothing is reserved, locked\n"
    "or written (docs/explain.md). For a workload (a Deployment, a Job), use simulate.\n"
    "\nOptions:\n"
    "  POD.yaml | -           one Pod, YAML or JSON, from a file or standard input\n"
    "  --pod NS/NAME          a pod of the cluster\n"
    "  --output text|json     a table per node (default) or one JSON object\n";

constexpr std::string_view kExample =
    "\nExamples:\n"
    "  hami-scheduler explain --config config/dev.yaml --pod ml/demo-infer\n"
    "  kubectl get pod -n ml infer-0 -o yaml | hami-scheduler explain --config FILE -\n"
    "\nExit codes: 0 explained (fitting nowhere is a result), 1 failed, 2 usage.\n";

std::string read_text(std::istream& in, const std::string& origin) {
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw OpsError(origin + ": cannot read the pod");
  return text.str();
}

// The one Pod of `text` (workload_parser.hpp's reading of a Pod).
std::unique_ptr<k8s::PodModel> pod_from_text(std::string_view text, const std::string& origin) {
  std::vector<WorkloadPod> pods;
  try {
    pods = parse_workload(text, origin, 2, true);
  } catch (const NotAPodError& e) {
    const std::string kind = e.kind().empty() ? "an object without a kind" : "a " + e.kind();
    throw OpsError(e.where() + ": explain takes one Pod, not " + kind +
                   "; to place the pods of a workload, run hami-scheduler simulate --workload " +
                   (origin == "standard input" ? std::string("FILE") : origin) +
                   " (docs/simulate.md)");
  } catch (const WorkloadError& e) {
    throw OpsError(e.what());
  }
  if (pods.size() != 1) {
    throw OpsError(origin + ": expected one Pod, found " +
                   (pods.empty() ? std::string("none") : std::string("more")));
  }
  rapidjson::Document doc;
  doc.Parse(pods.front().json.c_str());
  return std::make_unique<k8s::PodModel>(doc);
}

}  // namespace

int run_explain(std::span<const std::string> args, std::istream& in, std::ostream& out,
                std::ostream& err) {
  OpsOptions options;
  std::string pod_file;
  std::string pod_name;
  std::string output = "text";
  try {
    const std::vector<std::string> rest = take_ops_options(args, options);
    for (size_t i = 0; i < rest.size();) {
      if (auto p = option_value(rest, i, "pod")) {
        if (!pod_name.empty())
          throw UsageError("--pod given twice");
        pod_name = std::move(*p);
      } else if (auto o = option_value(rest, i, "output")) {
        if (*o != "text" && *o != "json")
          throw UsageError("--output: expected text or json, got \"" + *o + "\"");
        output = std::move(*o);
      } else if (rest[i] == "--help" || rest[i] == "-h") {
        out << kUsage << kAbout << kOpsOptionsHelp << kExample;
        return 0;
      } else if (rest[i] != "-" && rest[i].starts_with("-")) {
        throw UsageError("unknown option \"" + rest[i] + "\"");
      } else {
        if (!pod_file.empty())
          throw UsageError("one pod at a time: \"" + pod_file + "\" and \"" + rest[i] + "\"");
        pod_file = rest[i++];
      }
    }
    if (pod_file.empty() == pod_name.empty())
      throw UsageError("name the pod: POD.yaml, - (standard input) or --pod NS/NAME");
    if (!pod_name.empty()) {
      const size_t slash = pod_name.find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == pod_name.size() ||
          pod_name.find('/', slash + 1) != std::string::npos) {
        throw UsageError("--pod: expected NAMESPACE/NAME, got \"" + pod_name + "\"");
      }
    }
  } catch (const UsageError& e) {
    err << "explain: " << e.what() << "\n"
        << kUsage << "Run 'hami-scheduler explain --help' for the options.\n";
    return 2;
  }
  try {
    // The pod file is read first: a typo costs no plugin loading.
    std::unique_ptr<k8s::PodModel> from_file;
    if (pod_file == "-") {
      from_file = pod_from_text(read_text(in, "standard input"), "standard input");
    } else if (!pod_file.empty()) {
      from_file = pod_from_text(read_input_file(pod_file, "pod"), pod_file);
    }
    const log::Logger logger(ops_log_level(options), log::Format::text, &err);
    const auto ctx = OpsContext::open(options, logger);
    std::shared_ptr<const k8s::PodModel> pod;
    if (from_file) {
      const hami_str ns = from_file->view().namespace_;
      const std::string_view name(ns.ptr, ns.len);
      if (!known_namespaces(ctx->cluster()).contains(name))
        err << "explain: warning: " << missing_namespace_warning(name, 1) << "\n";
      pod = std::move(from_file);
    } else {
      const size_t slash = pod_name.find('/');
      const auto record = ctx->cluster().pod(std::string_view(pod_name).substr(0, slash),
                                             std::string_view(pod_name).substr(slash + 1));
      if (!record)
        throw OpsError("pod " + pod_name + " not found in the cluster");
      pod = record->model;
    }
    const scheduling::Explanation e = ctx->scheduler().explain(*pod);
    if (!e.error.empty())
      throw OpsError("pod " + e.pod + " cannot be scheduled: " + e.error);
    out << (output == "json" ? scheduling::explanation_json(e) + "\n"
                             : scheduling::explanation_text(e));
    return 0;
  } catch (const std::exception& e) {
    err << "explain: " << e.what() << "\n";
    return 1;
  }
}

int run_explain_command(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  return run_explain(args, std::cin, out, err);
}

}  // namespace hami::ops
