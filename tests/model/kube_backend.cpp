#include "kube_backend.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

namespace hami::model {

namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

std::shared_ptr<kube::ApiClient> client_for(const std::string& url) {
  kube::ApiConfig config;
  config.server = url;
  config.origin = "model";
  config.qps = 0;
  config.request_timeout = std::chrono::seconds(5);
  config.max_retries = 1;
  return std::make_shared<kube::ApiClient>(std::move(config));
}

kube::KubeClusterOptions cluster_options() {
  kube::KubeClusterOptions o;
  o.component = "hami-scheduler";
  o.instance = "model-host";
  o.list_page_size = 50;
  o.watch_timeout = std::chrono::seconds(60);
  o.backoff_initial = std::chrono::milliseconds(20);
  o.backoff_max = std::chrono::milliseconds(100);
  return o;
}

std::string without_resource_version(const std::string& text) {
  json object = json::parse(text);
  if (object.contains("metadata"))
    object["metadata"].erase("resourceVersion");
  return object.dump();
}

std::string pod_path(const std::string& ns, const std::string& pod) {
  return "/api/v1/namespaces/" + ns + "/pods/" + pod;
}

}  // namespace

KubeBackend::KubeBackend(const std::vector<std::string>& nodes_json)
    : drain_client_(client_for(server_.url())) {
  server_.apply(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ml"}})");
  for (const auto& node : nodes_json)
    server_.apply(node);
  cluster_ =
      std::make_unique<kube::KubernetesClusterState>(client_for(server_.url()), cluster_options());
  cluster_->start();
  if (!cluster_->wait_synced(10s))
    throw std::runtime_error("kube backend: cache not synced: " + cluster_->sync_status());
}

KubeBackend::~KubeBackend() {
  cluster_->stop();
}

StoredState KubeBackend::stored() const {
  StoredState state;
  for (const auto& text : server_.objects("Pod"))
    state.pods.push_back(parse_stored_pod(text));
  for (const auto& text : server_.objects("Node"))
    state.nodes.push_back(parse_stored_node(text, &registrations_));
  return state;
}

void KubeBackend::put_pod(const std::string& text) {
  server_.apply(without_resource_version(text));
}

void KubeBackend::put_node(const std::string& text) {
  server_.apply(without_resource_version(text));
}

void KubeBackend::remove_pod(const std::string& ns, const std::string& name) {
  server_.remove("Pod", ns, name);
}

void KubeBackend::arm(Fault fault, const std::string& ns, const std::string& pod,
                      const std::string& node) {
  server_.clear_requests();
  armed_.reset();
  Armed a;
  bool after = false;
  switch (fault) {
    case Fault::none:
      return;
    case Fault::pod_write_before:
      a = {"PATCH", pod_path(ns, pod), 1, 500};
      break;
    case Fault::pod_write_after:
      a = {"PATCH", pod_path(ns, pod), 1, 500};
      after = true;
      break;
    case Fault::pod_write_conflict:
      a = {"PATCH", pod_path(ns, pod), 1, 409};
      break;
    case Fault::pod_write_and_removal:
      a = {"PATCH", pod_path(ns, pod), 2, 500};
      break;
    case Fault::node_write_before:
      a = {"PATCH", "/api/v1/nodes/" + node, 1, 500};
      break;
    case Fault::node_write_after:
      a = {"PATCH", "/api/v1/nodes/" + node, 1, 500};
      after = true;
      break;
    case Fault::binding_before:
      a = {"POST", pod_path(ns, pod) + "/binding", 1, 500};
      break;
    case Fault::binding_after:
      a = {"POST", pod_path(ns, pod) + "/binding", 1, 500};
      after = true;
      break;
    case Fault::binding_refused:
      a = {"POST", pod_path(ns, pod) + "/binding", 1, 429};
      break;
  }
  if (after)
    server_.fail_next_after_applying(a.method, a.path, a.status, a.count);
  else
    server_.fail_next(a.method, a.path, a.status, a.count);
  armed_ = a;
}

bool KubeBackend::disarm() {
  if (!armed_)
    return false;
  const Armed a = *armed_;
  armed_.reset();
  int matched = 0;
  for (const auto& r : server_.requests()) {
    if (!r.watch && r.method == a.method && r.path == a.path)
      ++matched;
  }
  if (matched < a.count)
    drain(a, a.count - matched);
  return matched > 0;
}

void KubeBackend::drain(const Armed& armed, int leftover) {
  for (int i = 0; i < leftover; ++i) {
    try {
      if (armed.method == "PATCH") {
        drain_client_->patch(armed.path, kube::PatchType::merge, "{}");
      } else {
        // A Binding whose uid precondition cannot match: refused, no change.
        const std::string name = armed.path.substr(
            armed.path.rfind("/pods/") + 6, armed.path.size() - armed.path.rfind("/pods/") - 6 - 8);
        drain_client_->post(
            armed.path, R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + name +
                            R"(","uid":"uid-drain"},"target":{"kind":"Node","name":"node-0"}})");
      }
    } catch (const std::exception&) {
      // The injected answer, or the refusal: either way nothing changed.
    }
  }
}

void KubeBackend::drop_watches() {
  server_.drop_watches();
}

void KubeBackend::expire_history() {
  server_.compact();
  server_.drop_watches();
}

bool KubeBackend::cache_matches() const {
  const StoredState want = stored();
  const auto pods = cluster_->pods();
  if (pods.size() != want.pods.size())
    return false;
  for (const auto& p : want.pods) {
    const auto got = cluster_->pod(p.ns, p.name);
    const json object = json::parse(p.json);
    if (!got || got->uid != p.uid ||
        got->resource_version != object["metadata"].value("resourceVersion", ""))
      return false;
  }
  for (const auto& n : want.nodes) {
    const auto got = cluster_->node(n.name);
    if (!got || got->resource_version() != n.object["metadata"].value("resourceVersion", ""))
      return false;
  }
  return true;
}

bool KubeBackend::catch_up(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!cache_matches()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

}  // namespace hami::model
