#include "ops/simulate_run.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "cluster/node_lock.hpp"
#include "k8s/pod.hpp"
#include "ops/simulate_admission.hpp"
#include "scheduling/admission_view.hpp"
#include "scheduling/allocation.hpp"
#include "scheduling/reason_text.hpp"

namespace hami::ops {

namespace {

// The codes of a filter reason (scheduling::reason_codes), or the whole
// text when it has none.
std::vector<std::string> reason_codes(std::string_view reason) {
  std::vector<std::string> codes = scheduling::reason_codes(reason);
  if (codes.empty())
    codes.emplace_back(reason);
  return codes;
}

// The code most nodes gave (ties: the first in byte order), and a line
// with every code's node count.
std::pair<std::string, std::string> dominant_reason(const scheduling::FilterOutcome& outcome) {
  std::map<std::string, size_t> counts;
  for (const auto* reasons : {&outcome.failed, &outcome.unresolvable}) {
    for (const auto& [node, reason] : *reasons) {
      for (std::string& code : reason_codes(reason))
        ++counts[std::move(code)];
    }
  }
  std::string best;
  size_t best_count = 0;
  std::string detail;
  for (const auto& [code, count] : counts) {
    if (count > best_count) {
      best = code;
      best_count = count;
    }
    detail += (detail.empty() ? "" : ", ") + std::to_string(count) + " " + code;
  }
  if (best.empty())
    return {"NoNode", "no node to filter"};
  return {best, "nodes: " + detail};
}

// What HAMi's device plugin leaves once it served every container: the
// segments' separators only.
std::string erased_segments(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == ';')
      out += c;
  }
  return out;
}

// The node-side device plugin after a successful bind (see simulate_run.hpp).
void finish_bind(cluster::ClusterState& cluster, std::span<const host::DevicePluginHandle> devices,
                 const cluster::PodRecord& pod, const std::string& node) {
  cluster::PodMetadataPatch patch;
  patch.annotations.push_back(
      {std::string(scheduling::kBindPhaseAnnotation), std::string("success")});
  for (const auto& d : devices) {
    const std::string& key = d.description().to_allocate_annotation;
    if (key.empty())
      continue;
    if (const auto value = pod.annotation(key))
      patch.annotations.push_back({key, erased_segments(*value)});
  }
  cluster.patch_pod_metadata(pod.namespace_, pod.name, patch, pod.uid);
  const auto model = cluster.node(node);
  if (!model)
    return;
  std::vector<cluster::MetadataWrite> releases;
  const std::string owner = "," + pod.namespace_ + "," + pod.name;
  if (const auto lock = model->annotation(cluster::kNodeLockAnnotation);
      lock && lock->ends_with(owner)) {
    releases.push_back({std::string(cluster::kNodeLockAnnotation), std::nullopt});
  }
  for (const auto& d : devices) {
    const auto& description = d.description();
    if (description.takes_own_lock() && !description.own_lock_annotation.empty() &&
        model->annotation(description.own_lock_annotation)) {
      releases.push_back({description.own_lock_annotation, std::nullopt});
    }
  }
  if (!releases.empty())
    cluster.patch_node_annotations(node, releases, model->resource_version());
}

// What a device's tasks hold, as the figures count it. A vendor that names
// no memory (cores) resource does not meter it: every pod it places on a
// device may use the whole device's memory (cores), which is also what
// explain says such a pod needs. Otherwise what the allocation charges.
struct Held {
  int64_t memory_mib;
  int64_t cores;
};
Held held_on(const host::DeviceDescription& vendor, const hami_device& device,
             int64_t charged_memory_mib, int64_t charged_cores) {
  return {vendor.memory_resource.empty() ? device.memory_mib : charged_memory_mib,
          vendor.cores_resource.empty() ? device.cores : charged_cores};
}

// The registered device `id` of vendor `v` on `node`; null when unknown.
const hami_device* find_device(const scheduling::LedgerState& state, const std::string& node,
                               uint32_t v, std::string_view id) {
  const auto entry = state.nodes().find(node);
  if (entry == state.nodes().end() || !entry->second.devices)
    return nullptr;
  const auto& vendors = entry->second.devices->vendors();
  if (v >= vendors.size())
    return nullptr;
  for (size_t k = 0; k < vendors[v].size(); ++k) {
    if (vendors[v].id(k) == id)
      return &vendors[v].abi[k];
  }
  return nullptr;
}

void summarize(const scheduling::Scheduler& scheduler,
               std::span<const host::DevicePluginHandle> plugins,
               std::vector<int64_t> placed_memory, PairResult& result) {
  int64_t used_memory = 0, memory = 0, used_cores = 0, cores = 0;
  struct Free {
    int64_t memory;
    bool slot;
  };
  std::vector<Free> free;
  {
    const auto snapshot = scheduler.ledger().read();
    for (const auto& [name, entry] : snapshot->nodes()) {
      if (!entry.devices)
        continue;
      const auto& vendors = entry.devices->vendors();
      for (size_t v = 0; v < vendors.size(); ++v) {
        for (size_t k = 0; k < vendors[v].size(); ++k) {
          const hami_device& r = vendors[v].abi[k];
          const scheduling::DeviceUse use = v < entry.use.size() && k < entry.use[v].size()
                                                ? entry.use[v][k]
                                                : scheduling::DeviceUse{};
          const bool healthy = (r.flags & HAMI_DEVICE_HEALTHY) != 0 &&
                               (v >= entry.healthy.size() || entry.healthy[v]);
          ++result.devices;
          const Held held = use.used > 0 && v < plugins.size()
                                ? held_on(plugins[v].description(), r, use.memory_mib, use.cores)
                                : Held{use.memory_mib, use.cores};
          if (use.used > 0) {
            ++result.devices_used;
            used_memory += std::min<int64_t>(held.memory_mib, r.memory_mib);
            memory += r.memory_mib;
            used_cores += std::min<int64_t>(held.cores, r.cores);
            cores += r.cores;
          } else if (healthy) {
            ++result.devices_free;
          }
          if (healthy) {
            free.push_back(
                {std::max<int64_t>(0, r.memory_mib - held.memory_mib), use.used < r.count});
          }
        }
      }
    }
  }
  result.memory_utilisation =
      memory > 0 ? static_cast<double>(used_memory) / static_cast<double>(memory) : 0;
  result.core_utilisation =
      cores > 0 ? static_cast<double>(used_cores) / static_cast<double>(cores) : 0;
  if (!placed_memory.empty()) {
    const size_t mid = placed_memory.size() / 2;
    std::nth_element(placed_memory.begin(),
                     placed_memory.begin() + static_cast<std::ptrdiff_t>(mid), placed_memory.end());
    result.median_request_mib = placed_memory[mid];
  }
  int64_t total_free = 0, small_free = 0;
  for (const Free& f : free) {
    total_free += f.memory;
    if (!f.slot || f.memory < result.median_request_mib)
      small_free += f.memory;
  }
  result.fragmentation = result.median_request_mib > 0 && total_free > 0
                             ? static_cast<double>(small_free) / static_cast<double>(total_free)
                             : 0;
}

class PairRun {
 public:
  PairRun(OpsContext& ctx, const PolicyPair& policies, bool trace)
      : ctx_(ctx),
        cluster_(ctx.copy_cluster()),
        scheduler_(ctx.make_scheduler(*cluster_, policies, true)),
        view_(scheduler_->ledger(), *cluster_, ctx.plugins().devices()),
        admission_(ctx.plugins().devices(), ctx.plugins().admission(), &view_,
                   ctx.config().scheduler.name),
        trace_(trace) {
    result_.policies = policies;
    for (const auto& node : cluster_->nodes())
      nodes_.emplace_back(node->name());
  }

  void place(const WorkloadPod& pod) {
    TraceEntry entry;
    entry.pod = pod.namespace_ + "/" + pod.name;
    run(pod, entry);
    switch (entry.outcome) {
      case TraceEntry::Outcome::placed:
        ++result_.placed;
        break;
      case TraceEntry::Outcome::unplaced:
        ++result_.unplaced;
        ++result_.reasons[entry.reason];
        break;
      default:
        ++result_.skipped;
    }
    if (trace_)
      result_.trace.push_back(std::move(entry));
  }

  PairResult finish() {
    summarize(*scheduler_, ctx_.plugins().devices(), std::move(placed_memory_), result_);
    return std::move(result_);
  }

 private:
  static void unplaced(TraceEntry& entry, std::string reason, std::string detail) {
    entry.outcome = TraceEntry::Outcome::unplaced;
    entry.reason = std::move(reason);
    entry.detail = std::move(detail);
  }

  void run(const WorkloadPod& pod, TraceEntry& entry) {
    const AdmittedPod admitted = admission_.admit(pod.json, pod.namespace_);
    if (admitted.verdict != AdmittedPod::Verdict::allowed) {
      unplaced(
          entry,
          admitted.verdict == AdmittedPod::Verdict::denied ? "AdmissionDenied" : "AdmissionError",
          admitted.message);
      return;
    }
    rapidjson::Document doc;
    doc.Parse(admitted.json.data(), admitted.json.size());
    const k8s::PodModel model(doc);
    const hami_str scheduler_name = model.view().scheduler_name;
    if (std::string_view(scheduler_name.ptr, scheduler_name.len) != ctx_.config().scheduler.name) {
      entry.detail = "left to its scheduler by the webhook";
      return;
    }
    cluster_->upsert(doc, "workload");
    const auto stored = cluster_->pod(pod.namespace_, pod.name);
    if (!stored || !stored->model) {
      unplaced(entry, "FilterError", "the pod was not stored");
      return;
    }
    const scheduling::FilterOutcome outcome = scheduler_->filter(*stored->model, nodes_);
    if (!outcome.error.empty()) {
      unplaced(entry, "FilterError", outcome.error);
      return;
    }
    if (outcome.passthrough) {
      entry.detail = "asks for no device this scheduler manages";
      return;
    }
    if (outcome.fit.empty()) {
      auto [reason, detail] = dominant_reason(outcome);
      unplaced(entry, std::move(reason), std::move(detail));
      return;
    }
    std::vector<std::string> fitting;
    fitting.reserve(outcome.fit.size());
    for (size_t i : outcome.fit)
      fitting.push_back(nodes_[i]);
    const auto scores = scheduler_->prioritize(*stored->model, fitting);
    size_t best = 0;
    for (size_t i = 1; i < scores.size(); ++i) {
      if (scores[i].score > scores[best].score)
        best = i;
    }
    const std::string node = scores.empty() ? fitting.front() : scores[best].host;
    if (const std::string error = scheduler_->bind(pod.namespace_, pod.name, stored->uid, node);
        !error.empty()) {
      unplaced(entry, "BindFailed", error);
      return;
    }
    entry.outcome = TraceEntry::Outcome::placed;
    entry.node = node;
    entry.score = scores.empty() ? 0 : scores[best].score;
    {
      const auto snapshot = scheduler_->ledger().read();
      if (const scheduling::PodCharge* charge = snapshot->pod(stored->uid)) {
        for (const auto& d : charge->devices) {
          const auto& plugin = ctx_.plugins().devices()[d.vendor];
          const hami_device* device = find_device(*snapshot, node, d.vendor, d.device_id);
          const Held held = device != nullptr
                                ? held_on(plugin.description(), *device, d.memory_mib, d.cores)
                                : Held{d.memory_mib, d.cores};
          placed_memory_.push_back(held.memory_mib);
          if (trace_)
            entry.devices.push_back({plugin.name(), d.device_id, held.memory_mib, held.cores});
        }
      }
    }
    if (const auto bound = cluster_->pod(pod.namespace_, pod.name))
      finish_bind(*cluster_, ctx_.plugins().devices(), *bound, node);
  }

  OpsContext& ctx_;
  std::unique_ptr<cluster::FileClusterState> cluster_;
  std::unique_ptr<scheduling::Scheduler> scheduler_;
  scheduling::LedgerAdmissionView view_;
  SimulatedAdmission admission_;
  bool trace_;
  std::vector<std::string> nodes_;
  std::vector<int64_t> placed_memory_;
  PairResult result_;
};

// Refuses a workload pod named like a pod of the cluster: storing it would
// replace that pod and free what it holds.
void refuse_name_clashes(const cluster::ClusterState& cluster,
                         std::span<const WorkloadPod> workload) {
  constexpr size_t kNamed = 3;
  std::vector<std::string> named;
  size_t clashes = 0;
  for (const WorkloadPod& pod : workload) {
    const auto existing = cluster.pod(pod.namespace_, pod.name);
    if (!existing)
      continue;
    if (++clashes <= kNamed) {
      named.push_back(pod.namespace_ + "/" + pod.name + " (" +
                      (existing->node_name.empty() ? "pending" : "on " + existing->node_name) +
                      ")");
    }
  }
  if (clashes == 0)
    return;
  std::string list;
  for (const std::string& n : named)
    list += (list.empty() ? "" : ", ") + n;
  if (clashes > named.size())
    list += " and " + std::to_string(clashes - named.size()) + " more";
  if (clashes == 1) {
    throw OpsError("a workload pod has the name of a pod of the cluster: " + list +
                   "; placing it would replace that pod and free what it holds: rename it in "
                   "the workload");
  }
  throw OpsError(std::to_string(clashes) +
                 " workload pods have names of pods of the cluster: " + list +
                 "; placing them would replace those pods and free what they hold: rename "
                 "them in the workload");
}

}  // namespace

std::vector<PolicyPair> parse_policy_pairs(std::string_view text) {
  std::vector<PolicyPair> pairs;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view item = text.substr(start, end - start);
    const size_t slash = item.find('/');
    if (slash == std::string_view::npos && !pairs.empty() && !item.empty()) {
      // A word without a node part continues the previous GPU policy chain
      // ("spread/numa,binpack").
      pairs.back().gpu += "," + std::string(item);
    } else if (slash == std::string_view::npos || slash == 0 || slash + 1 == item.size() ||
               item.find('/', slash + 1) != std::string_view::npos) {
      throw UsageError("--policies: expected NODE/GPU[,NODE/GPU...], got \"" + std::string(item) +
                       "\"");
    } else {
      pairs.push_back({std::string(item.substr(0, slash)), std::string(item.substr(slash + 1))});
    }
    start = end + 1;
  }
  return pairs;
}

SimulationResult simulate(OpsContext& ctx, std::span<const WorkloadPod> workload,
                          const SimulateOptions& options) {
  std::vector<PolicyPair> pairs = options.pairs;
  if (pairs.empty())
    pairs.push_back(ctx.default_policies());
  for (const PolicyPair& p : pairs) {
    if (ctx.plugins().scheduling_for(p.node, true) == nullptr)
      throw OpsError("node policy \"" + p.node + "\": no scheduling plugin declares it");
    if (ctx.plugins().scheduling_for(p.gpu, false) == nullptr)
      throw OpsError("GPU policy \"" + p.gpu + "\": no scheduling plugin declares it");
  }
  refuse_name_clashes(ctx.cluster(), workload);
  SimulationResult result;
  result.pods = workload.size();
  result.nodes = ctx.cluster().nodes().size();
  for (const PolicyPair& p : pairs) {
    PairRun run(ctx, p, options.trace);
    const std::string label = p.node + "/" + p.gpu;
    size_t done = 0;
    for (const WorkloadPod& pod : workload) {
      run.place(pod);
      if (options.progress)
        options.progress(label, ++done, workload.size());
    }
    result.pairs.push_back(run.finish());
  }
  return result;
}

}  // namespace hami::ops
