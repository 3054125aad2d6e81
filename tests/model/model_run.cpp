#include "model_run.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "invariants.hpp"
#include "k8s/pod.hpp"

namespace hami::model {

namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kNamespace = "ml";
constexpr int kPoolSize = 6;
constexpr const char* kGateReason = "not the leader: model gate closed";

std::string node_json(const std::string& name) {
  json reg = json::array();
  for (int i = 0; i < kGpusPerNode; ++i) {
    reg.push_back({{"id", "GPU-" + name + "-" + std::to_string(i)},
                   {"index", i},
                   {"count", kDeviceSlots},
                   {"devmem", kDeviceMemory},
                   {"devcore", 100},
                   {"type", "NVIDIA"},
                   {"health", true}});
  }
  const std::string count = std::to_string(kGpusPerNode * kDeviceSlots);
  return json{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       {{"name", name}, {"annotations", {{"hami.io/node-nvidia-register", reg.dump()}}}}},
      {"status",
       {{"capacity", {{"nvidia.com/gpu", count}}}, {"allocatable", {{"nvidia.com/gpu", count}}}}}}
      .dump();
}

// HAMi §3.1 migProfiles of an A100-SXM4-40GB, as config/demo-cluster.yaml.
json mig_profiles() {
  const auto placements = [](std::initializer_list<std::pair<int, int>> list) {
    json out = json::array();
    for (const auto& [start, size] : list)
      out.push_back({{"start", start}, {"size", size}});
    return out;
  };
  return json::array(
      {{{"name", "1g.5gb"},
        {"memoryMB", 4864},
        {"core", 14},
        {"sliceCount", 1},
        {"placements", placements({{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}, {6, 1}})}},
       {{"name", "2g.10gb"},
        {"memoryMB", 9856},
        {"core", 28},
        {"sliceCount", 2},
        {"placements", placements({{0, 2}, {2, 2}, {4, 2}})}},
       {{"name", "3g.20gb"},
        {"memoryMB", 19968},
        {"core", 42},
        {"sliceCount", 3},
        {"placements", placements({{0, 4}, {4, 4}})}},
       {{"name", "7g.40gb"},
        {"memoryMB", 40192},
        {"core", 100},
        {"sliceCount", 7},
        {"placements", placements({{0, 8}})}}});
}

std::string mig_node_json(const std::string& name) {
  json reg = json::array();
  for (int i = 0; i < kMigGpus; ++i) {
    reg.push_back({{"id", "GPU-" + name + "-" + std::to_string(i)},
                   {"index", i},
                   {"count", kMigDeviceSlots},
                   {"devmem", kMigDeviceMemory},
                   {"devcore", 100},
                   {"type", "NVIDIA A100-SXM4-40GB"},
                   {"mode", "mig"},
                   {"health", true},
                   {"migProfiles", mig_profiles()}});
  }
  const std::string count = std::to_string(kMigGpus * kMigDeviceSlots);
  return json{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       {{"name", name}, {"annotations", {{"hami.io/node-nvidia-register", reg.dump()}}}}},
      {"status",
       {{"capacity", {{"nvidia.com/gpu", count}}}, {"allocatable", {{"nvidia.com/gpu", count}}}}}}
      .dump();
}

std::string pod_json(const std::string& name, const std::string& uid, const std::string& limits,
                     const std::string& mode) {
  json containers = json::array();
  int i = 0;
  for (const auto& l : json::parse(limits)) {
    containers.push_back(
        {{"name", "c" + std::to_string(i++)}, {"image", "cuda"}, {"resources", {{"limits", l}}}});
  }
  json annotations = json::object();
  if (!mode.empty())
    annotations[std::string(kVgpuMode)] = mode;
  return json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name}, {"namespace", kNamespace}, {"uid", uid}, {"annotations", annotations}}},
      {"spec", {{"schedulerName", "hami-scheduler"}, {"containers", containers}}},
      {"status", {{"phase", "Pending"}}}}
      .dump();
}

k8s::PodModel pod_model(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  return k8s::PodModel(doc);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items)
    out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

std::vector<std::string> model_nodes_json() {
  std::vector<std::string> out;
  for (int n = 0; n < kNodes; ++n)
    out.push_back(node_json("node-" + std::to_string(n)));
  out.push_back(mig_node_json(kMigNode));
  return out;
}

std::string violation_kind(const std::string& violation) {
  const std::regex digits("[0-9]+");
  return std::regex_replace(violation, digits, "#");
}

scheduling::AllocateAt mode_of(uint64_t seed) {
  return seed % 2 == 0 ? scheduling::AllocateAt::Bind : scheduling::AllocateAt::Filter;
}

ModelRun::ModelRun(ModelEnv& env, Backend& backend, scheduling::AllocateAt mode)
    : env_(env), backend_(backend), mode_(mode) {
  env_.now = kStartTime;
  for (int n = 0; n < kNodes; ++n)
    nodes_.push_back("node-" + std::to_string(n));
  nodes_.push_back(kMigNode);
  for (int p = 0; p < kPoolSize; ++p)
    pool_.push_back("p" + std::to_string(p));
  build_scheduler();
  current_ = backend_.stored();
}

ModelRun::~ModelRun() = default;

void ModelRun::build_scheduler() {
  scheduler_.reset();
  scheduling::SchedulerOptions options;
  options.allocate_at = mode_;
  options.clock = [this] { return env_.now.load(); };
  options.gate = [this] { return gate_; };
  options.filter_workers = 0;
  scheduler_ = std::make_unique<scheduling::Scheduler>(backend_.cluster(), env_.registry.devices(),
                                                       env_.registry.scheduling(), options);
}

GenContext ModelRun::context() const {
  GenContext ctx;
  ctx.nodes = nodes_;
  ctx.pool = pool_;
  ctx.filter_writes = mode_ == scheduling::AllocateAt::Filter;
  ctx.watches = backend_.has_watches();
  ctx.last_fit = &last_fit_;
  ctx.avoid = avoid_;
  return ctx;
}

std::string ModelRun::next_uid(const std::string& name) {
  return "uid-" + name + "-" + std::to_string(++uid_counter_);
}

// The pod goes (deleted, replaced or completed): whatever the scheduler
// kept for it settles, and a node lock it holds stays until it expires or
// is taken over (no device plugin will release it).
void ModelRun::forget(const StoredState& before, const StoredPod& pod) {
  allowances_.unconfirmed.erase(pod.uid);
  stale_uid_[pod.name] = pod.uid;
  const std::string suffix = std::string(",") + kNamespace + "," + pod.name;
  for (const auto& node : before.nodes) {
    if (node.lock && node.lock->ends_with(suffix))
      allowances_.exempt_locks.insert(*node.lock);
  }
}

std::string ModelRun::run_filter(const Op& op, const StoredPod& pod) {
  const auto model = pod_model(pod.json);
  backend_.arm(op.fault, kNamespace, pod.name, "");
  const auto out = scheduler_->filter(model, nodes_);
  const bool fired = backend_.disarm();
  if (fired && pod_write_unknown(op.fault))
    allowances_.unconfirmed.insert(pod.uid);
  std::vector<std::string> fit;
  for (const size_t i : out.fit)
    fit.push_back(nodes_[i]);
  last_fit_[pod.uid] = fit;
  std::string text = "fit [" + joined(fit) + "]";
  if (!out.error.empty())
    text += " error \"" + out.error + "\"";
  for (const auto& [node, reason] : out.failed)
    text += " " + node + ": \"" + reason + "\"";
  if (op.fault != Fault::none)
    text += fired ? " (fault fired)" : " (fault unused)";
  return text;
}

std::string ModelRun::run_bind(const Op& op, const StoredPod& pod) {
  std::string uid = pod.uid;
  if (op.uid == UidChoice::stale) {
    const auto it = stale_uid_.find(pod.name);
    uid = it == stale_uid_.end() ? "uid-never-existed" : it->second;
  } else if (op.uid == UidChoice::bogus) {
    uid = "uid-bogus";
  }
  const bool gate_closed = !gate_.empty();
  backend_.arm(op.fault, kNamespace, pod.name, op.node);
  const std::string error = scheduler_->bind(kNamespace, pod.name, uid, op.node);
  const bool fired = backend_.disarm();
  if (fired && pod_write_unknown(op.fault)) {
    allowances_.unconfirmed.insert(pod.uid);
  } else if (!gate_closed && uid == pod.uid && pod.node_name != op.node) {
    // A bind that went through the write path settles what an earlier
    // unconfirmed write left: replaced, released or confirmed.
    allowances_.unconfirmed.erase(pod.uid);
  }
  bind_check_ = BindCheck{
      pod.uid, pod.json, uid, op.node, error, gate_closed, fired && node_write_fault(op.fault)};
  std::string text = error.empty() ? "ok" : "error \"" + error + "\"";
  if (op.fault != Fault::none)
    text += fired ? " (fault fired)" : " (fault unused)";
  return text;
}

void ModelRun::check_bind(const BindCheck& bind, const StoredState& after,
                          std::vector<std::string>& violations) {
  const StoredPod* now = nullptr;
  for (const auto& p : after.pods) {
    if (p.uid == bind.pod_uid)
      now = &p;
  }
  if (bind.error.empty() && bind.used_uid != bind.pod_uid)
    violations.push_back("bind: a bind with uid " + bind.used_uid + " succeeded for pod " +
                         bind.pod_uid);
  if (bind.error.empty() && (now == nullptr || now->node_name != bind.node)) {
    violations.push_back("bind: succeeded but the pod is bound to \"" +
                         (now ? now->node_name : std::string("<gone>")) + "\", not " + bind.node);
  }
  if (bind.gate_closed && (now == nullptr || now->json != bind.pod_json))
    violations.push_back("gate: a bind with the gate closed changed the pod");
  if (bind.node_fault) {
    if (const StoredNode* node = after.node(bind.node); node && node->lock)
      allowances_.exempt_locks.insert(*node->lock);
  }
}

std::string ModelRun::run_finish(const StoredState& before, const StoredPod& pod) {
  if (pod.node_name.empty() || pod.annotation(kBindPhase) != "allocating")
    return "skipped (not binding)";
  json object = json::parse(pod.json);
  auto& annotations = object["metadata"]["annotations"];
  annotations[std::string(kBindPhase)] = "success";
  // As HAMi's device plugin, once the instances exist: their runtime
  // identity joins each MIG allocation entry.
  if (const auto mig = pod.annotation(kMigAllocations)) {
    json entries = json::parse(*mig, nullptr, false);
    if (entries.is_array()) {
      for (auto& e : entries) {
        if (!e.is_object() || !e.contains("placement") || !e.contains("gpuUUID"))
          continue;
        const auto start = e["placement"].value("start", 0);
        e["migUUID"] = "MIG-" + e["gpuUUID"].get<std::string>() + "-" + std::to_string(start);
        e["gpuInstanceID"] = start + 1;
        e["computeInstanceID"] = 0;
      }
      annotations[std::string(kMigAllocations)] = entries.dump();
    }
  }
  object["metadata"].erase("resourceVersion");
  backend_.put_pod(object.dump());
  const StoredNode* node = before.node(pod.node_name);
  const std::string suffix = std::string(",") + kNamespace + "," + pod.name;
  if (node != nullptr && node->lock && node->lock->ends_with(suffix)) {
    json n = node->object;
    n["metadata"]["annotations"].erase(std::string(kLock));
    n["metadata"].erase("resourceVersion");
    backend_.put_node(n.dump());
    return "bind-phase success, lock on " + pod.node_name + " released";
  }
  return "bind-phase success";
}

void ModelRun::check(std::vector<std::string>& violations) {
  if (!backend_.catch_up(10s)) {
    violations.push_back("cache: did not catch up with the server within 10 s");
    current_ = backend_.stored();
    return;
  }
  current_ = backend_.stored();
  if (bind_check_) {
    check_bind(*bind_check_, current_, violations);
    bind_check_.reset();
  }
  // The change feed of a watched backend reaches the scheduler just after
  // its cache: a few bounded retries before a difference counts.
  const int attempts = backend_.has_watches() ? 100 : 1;
  std::vector<std::string> found;
  for (int i = 0; i < attempts; ++i) {
    if (i > 0) {
      std::this_thread::sleep_for(20ms);
      current_ = backend_.stored();
    }
    const auto snapshot = scheduler_->ledger().read();
    CheckInput in;
    in.stored = &current_;
    in.ledger = &*snapshot;
    in.allowances = &allowances_;
    in.now = env_.now.load();
    found = check_all(in);
    if (found.empty())
      return;
  }
  violations.insert(violations.end(), found.begin(), found.end());
}

// A change made behind the scheduler's back (a user, the kubelet, the
// device plugin), straight to the store.
std::string ModelRun::mutate(const Op& op, const StoredState& before) {
  const StoredPod* pod = op.pod.empty() ? nullptr : before.pod(kNamespace, op.pod);
  switch (op.kind) {
    case OpKind::create:
      if (pod != nullptr) {
        return "skipped (exists)";
      }
      backend_.put_pod(pod_json(op.pod, next_uid(op.pod), op.limits, op.mode));
      return "created";
    case OpKind::remove:
      if (pod == nullptr) {
        return "skipped (absent)";
      }
      forget(before, *pod);
      backend_.remove_pod(kNamespace, op.pod);
      return "deleted " + pod->uid;
    case OpKind::recreate: {
      if (pod == nullptr) {
        return "skipped (absent)";
      }
      forget(before, *pod);
      backend_.remove_pod(kNamespace, op.pod);
      const std::string uid = next_uid(op.pod);
      backend_.put_pod(pod_json(op.pod, uid, op.limits, op.mode));
      return "replaced " + pod->uid + " by " + uid;
    }
    case OpKind::complete: {
      if (pod == nullptr) {
        return "skipped (absent)";
      }
      forget(before, *pod);
      json object = json::parse(pod->json);
      object["status"]["phase"] = "Succeeded";
      object["metadata"].erase("resourceVersion");
      backend_.put_pod(object.dump());
      return "Succeeded";
    }
    case OpKind::finish:
      return pod == nullptr ? "skipped (absent)" : run_finish(before, *pod);
    default:
      return "nothing";
  }
}

std::string ModelRun::step(const Op& op, std::vector<std::string>& violations) {
  const StoredState& before = current_;
  const StoredPod* pod = op.pod.empty() ? nullptr : before.pod(kNamespace, op.pod);
  std::string outcome;
  switch (op.kind) {
    case OpKind::create:
    case OpKind::remove:
    case OpKind::recreate:
    case OpKind::complete:
    case OpKind::finish:
      outcome = mutate(op, before);
      break;
    case OpKind::filter:
      outcome = pod == nullptr ? "skipped (absent)" : run_filter(op, *pod);
      break;
    case OpKind::prioritize: {
      if (pod == nullptr) {
        outcome = "skipped (absent)";
        break;
      }
      const auto scores = scheduler_->prioritize(pod_model(pod->json), nodes_);
      for (const auto& s : scores) {
        outcome += (outcome.empty() ? "" : ",") + s.host + ":" + std::to_string(s.score);
        if (s.score < 0 || s.score > 10)
          violations.push_back("prioritize: score " + std::to_string(s.score) + " for " + s.host);
      }
      break;
    }
    case OpKind::bind:
      outcome = pod == nullptr ? "skipped (absent)" : run_bind(op, *pod);
      break;
    case OpKind::clock:
      env_.now += op.seconds;
      outcome = "now " + std::to_string(env_.now.load());
      break;
    case OpKind::leader:
      build_scheduler();
      allowances_.unconfirmed.clear();
      outcome = "new scheduler";
      break;
    case OpKind::gate:
      gate_ = gate_.empty() ? kGateReason : "";
      outcome = gate_.empty() ? "open" : "closed";
      break;
    case OpKind::drop_watches:
    case OpKind::expire_history: {
      // The change is made at once, while the cache is blind: the
      // re-watch (or the relist after 410) has to catch it up.
      if (op.kind == OpKind::drop_watches)
        backend_.drop_watches();
      else
        backend_.expire_history();
      Op change = op;
      change.kind = op.then;
      outcome = (op.kind == OpKind::drop_watches ? "dropped, " : "compacted and dropped, ") +
                mutate(change, before);
      break;
    }
  }
  check(violations);
  return outcome;
}

std::string RunResult::report(std::string_view backend) const {
  std::string out = "model run failed: backend " + std::string(backend) + ", seed " +
                    std::to_string(seed) + ", allocateAt " +
                    (mode == scheduling::AllocateAt::Bind ? "bind" : "filter") + ", after " +
                    std::to_string(ops.size()) + " operations\n";
  std::string avoid;
  for (const auto& a : avoided)
    avoid += (avoid.empty() ? "" : ",") + a;
  if (shortened) {
    out += "(a shortened list of the seed's operations, replayed as listed)\n";
  } else {
    out += "replay: HAMI_MODEL_SEED=" + std::to_string(seed) +
           " HAMI_MODEL_OPS=" + std::to_string(ops.size()) +
           (avoid.empty() ? "" : " HAMI_MODEL_AVOID=" + avoid) + "\n";
  }
  out += "violations:\n";
  for (const auto& v : violations)
    out += "  " + v + "\n";
  out += "operations:\n";
  for (size_t i = 0; i < log.size(); ++i)
    out += "  " + std::to_string(i + 1) + ". " + log[i] + "\n";
  return out;
}

namespace {

RunResult execute(ModelEnv& env, const BackendFactory& factory, uint64_t seed,
                  const std::vector<Op>* fixed, int count,
                  std::chrono::steady_clock::time_point deadline,
                  const std::set<std::string>& avoid) {
  RunResult result;
  result.seed = seed;
  result.mode = mode_of(seed);
  result.shortened = fixed != nullptr;
  result.avoided = avoid;
  const auto backend = factory(model_nodes_json());
  ModelRun run(env, *backend, result.mode);
  run.avoid(avoid);
  OpGenerator generator(seed);
  const int total = fixed ? static_cast<int>(fixed->size()) : count;
  for (int i = 0; i < total; ++i) {
    if (std::chrono::steady_clock::now() > deadline)
      break;
    const Op op =
        fixed ? (*fixed)[static_cast<size_t>(i)] : generator.next(run.stored(), run.context());
    std::vector<std::string> violations;
    std::string outcome;
    try {
      outcome = run.step(op, violations);
    } catch (const std::exception& e) {
      violations.push_back(std::string("exception: ") + e.what());
    }
    result.ops.push_back(op);
    result.log.push_back(describe(op) + "  =>  " + outcome);
    if (!violations.empty()) {
      result.violations = std::move(violations);
      break;
    }
  }
  return result;
}

std::string kind_of(const std::string& violation) {
  return violation_kind(violation);
}

}  // namespace

RunResult run_seed(ModelEnv& env, const BackendFactory& factory, uint64_t seed, int ops,
                   std::chrono::steady_clock::time_point deadline,
                   const std::set<std::string>& avoid) {
  return execute(env, factory, seed, nullptr, ops, deadline, avoid);
}

RunResult replay(ModelEnv& env, const BackendFactory& factory, uint64_t seed,
                 const std::vector<Op>& ops) {
  return execute(env, factory, seed, &ops, 0, std::chrono::steady_clock::time_point::max(), {});
}

std::vector<Op> shrink(ModelEnv& env, const BackendFactory& factory, const RunResult& failed,
                       std::chrono::steady_clock::time_point deadline) {
  if (!failed.failed())
    return failed.ops;
  const std::string kind = kind_of(failed.violations.front());
  const auto still_fails = [&](const std::vector<Op>& ops) {
    const RunResult r = replay(env, factory, failed.seed, ops);
    return r.failed() && std::any_of(r.violations.begin(), r.violations.end(),
                                     [&](const auto& v) { return kind_of(v) == kind; });
  };
  std::vector<Op> ops = failed.ops;
  // Passes of halving chunk sizes until a whole pass removes nothing (a
  // later pass may remove pairs that only go together).
  for (size_t before = 0; before != ops.size();) {
    before = ops.size();
    for (size_t chunk = std::max<size_t>(ops.size() / 2, 1);;
         chunk = chunk > 4 ? chunk / 2 : chunk - 1) {
      for (size_t start = 0; start + chunk <= ops.size();) {
        if (std::chrono::steady_clock::now() > deadline)
          return ops;
        std::vector<Op> candidate(ops.begin(), ops.begin() + static_cast<long>(start));
        candidate.insert(candidate.end(), ops.begin() + static_cast<long>(start + chunk),
                         ops.end());
        if (!candidate.empty() && still_fails(candidate))
          ops = std::move(candidate);
        else
          start += chunk <= 4 ? 1 : chunk;
      }
      if (chunk == 1)
        break;
    }
  }
  return ops;
}

}  // namespace hami::model
