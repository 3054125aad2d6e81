#include "ops/explain_command.hpp"

#include <rapidjson/document.h>

#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "k8s/pod.hpp"
#include "ops/known_namespaces.hpp"
#include "ops/ops_context.hpp"
#include "ops/workload_parser.hpp"
#include "scheduling/explain.hpp"

namespace hami::ops {

namespace {

constexpr std::string_view kUsage =
    "usage: hami-scheduler explain [--config FILE] [--cluster file:PATH | kubernetes] "
    "(POD.yaml | - | --pod NS/NAME) [--output text|json]\n";

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
        out << kUsage;
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
    err << "explain: " << e.what() << "\n" << kUsage;
    return 2;
  }
  try {
    // The pod file is read first: a typo costs no plugin loading.
    std::unique_ptr<k8s::PodModel> from_file;
    if (pod_file == "-") {
      from_file = pod_from_text(read_text(in, "standard input"), "standard input");
    } else if (!pod_file.empty()) {
      std::ifstream file(pod_file, std::ios::binary);
      if (!file)
        throw OpsError(pod_file + ": cannot open the pod");
      from_file = pod_from_text(read_text(file, pod_file), pod_file);
    }
    const log::Logger logger(log::Level::warn, log::Format::text, &err);
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
