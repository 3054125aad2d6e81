// `hami-scheduler snapshot`: the cluster as a file-backend snapshot on
// stdout (docs/simulate.md).
//
//   hami-scheduler snapshot [--config FILE] [--cluster kubernetes | file:PATH]
//                           [--anonymize]
//
// kubernetes (the config's cluster.kubernetes): read-only lists through
// ops/live_snapshot.hpp. file:PATH: the snapshot loaded and written again
// in the same form — with --anonymize, the way to anonymize a snapshot
// taken earlier. Exit codes: 0 written, 1 failed, 2 usage.
#include <rapidjson/document.h>

#include <exception>
#include <ostream>
#include <span>
#include <string>

#include "cluster/file_cluster.hpp"
#include "extender/extender_stack.hpp"
#include "kube/api_client.hpp"
#include "ops/live_snapshot.hpp"
#include "ops/ops_context.hpp"
#include "ops/snapshot_anonymize.hpp"

namespace hami::ops {

namespace {

constexpr std::string_view kUsage =
    "usage: hami-scheduler snapshot [OPTIONS] [--anonymize] > cluster.yaml\n";

constexpr std::string_view kAbout =
    "\nWrites the cluster as a file-backend snapshot on stdout: nodes, pods, resource quotas\n"
    "and namespaces, each cut to what the scheduler reads. With --cluster kubernetes it only\n"
    "lists (GET); with file:PATH it writes that snapshot again. explain and simulate run on\n"
    "it with --cluster file:cluster.yaml (docs/simulate.md).\n"
    "\nOptions:\n"
    "  --anonymize            rename namespaces, nodes, pods, quotas, pod groups and\n"
    "                         containers consistently; drop every other field\n";

constexpr std::string_view kExample =
    "\nExample:\n"
    "  hami-scheduler snapshot --config /etc/hami-scheduler/config.yaml --cluster kubernetes \\\n"
    "      --anonymize > cluster.yaml\n"
    "\nExit codes: 0 written, 1 failed, 2 usage.\n";

// A file snapshot written again as the same List text.
std::string file_snapshot(const std::filesystem::path& file, bool anonymize) {
  const auto state = file.empty() ? std::make_unique<cluster::FileClusterState>()
                                  : cluster::FileClusterState::load(file);
  rapidjson::Document doc;
  const std::string json = state->to_json();
  doc.Parse(json.data(), json.size());
  rapidjson::Value* items = nullptr;
  if (doc.IsObject() && doc.HasMember("items"))
    items = &doc["items"];
  rapidjson::Value empty(rapidjson::kArrayType);
  if (items == nullptr || !items->IsArray())
    items = &empty;
  if (anonymize)
    anonymize_snapshot(*items, doc.GetAllocator());
  return write_snapshot_list(*items);
}

}  // namespace

int run_snapshot_command(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  OpsOptions options;
  bool anonymize = false;
  try {
    for (const std::string& arg : take_ops_options(args, options)) {
      if (arg == "--anonymize") {
        anonymize = true;
      } else if (arg == "--help" || arg == "-h") {
        out << kUsage << kAbout << kOpsOptionsHelp << kExample;
        return 0;
      } else {
        throw UsageError("unexpected argument \"" + arg + "\"");
      }
    }
  } catch (const UsageError& e) {
    err << "snapshot: " << e.what() << "\n"
        << kUsage << "Run 'hami-scheduler snapshot --help' for the options.\n";
    return 2;
  }
  try {
    // Only the config's cluster section is read: no plugin is loaded.
    const config::HostConfig config = load_ops_config(options);
    if (config.cluster.source == config::ClusterSource::file) {
      out << file_snapshot(config.cluster.file, anonymize);
    } else {
      const log::Logger logger(ops_log_level(options), log::Format::text, &err);
      kube::ApiClient api(extender::kubernetes_api_config(config.cluster.kubernetes), &logger);
      LiveSnapshotOptions snapshot;
      snapshot.anonymize = anonymize;
      out << read_live_snapshot(api, snapshot);
    }
    out.flush();
    return out.good() ? 0 : 1;
  } catch (const std::exception& e) {
    err << "snapshot: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace hami::ops
