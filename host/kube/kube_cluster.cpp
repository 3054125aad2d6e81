#include "kube/kube_cluster.hpp"

#include <unistd.h>

#include <array>
#include <condition_variable>
#include <mutex>
#include <utility>
#include <vector>

#include "cluster/object_records.hpp"
#include "k8s/object_error.hpp"
#include "kube/event_sink.hpp"
#include "kube/kube_cluster_store.hpp"
#include "kube/object_trim.hpp"
#include "kube/reflector.hpp"
#include "kube/write_bodies.hpp"
#include "log/logger.hpp"

namespace hami::kube {

namespace {

using rapidjson::Value;

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0')
    return "hami-scheduler";
  return buf;
}

enum CacheIndex : size_t { kPods, kNodes, kQuotas, kNamespaces, kCacheCount };

constexpr std::array<const char*, kCacheCount> kCacheNames = {"pods", "nodes", "resourcequotas",
                                                              "namespaces"};

// ApiError → ClusterError of the kind the ClusterState contract promises.
cluster::ClusterError cluster_error(const ApiError& e) {
  const std::string message = e.message().empty() ? std::string(e.what()) : e.message();
  switch (e.status()) {
    case 404:
      return {cluster::ErrorKind::NotFound, message};
    case 409:
      return {cluster::ErrorKind::Conflict, message};
    case 400:
    case 422:
      return {cluster::ErrorKind::Invalid, message};
    default:
      break;
  }
  if (e.status() == 0)
    return {cluster::ErrorKind::Unavailable, "kubernetes API server unavailable: " + message};
  // Only a 5xx may come after the write was stored. Every 4xx is answered
  // before storage: 401/403 by authentication, authorization (RBAC) or
  // admission, 429 by API priority and fairness or the max-in-flight limit.
  return {cluster::ErrorKind::Unavailable,
          "kubernetes API server answered " + std::to_string(e.status()) + ": " + message,
          e.status() >= 500};
}

std::string escape_segment(std::string_view segment) {
  return query_escape(segment);
}

std::string pod_path(std::string_view namespace_, std::string_view name) {
  return "/api/v1/namespaces/" + escape_segment(namespace_) + "/pods/" + escape_segment(name);
}

std::string node_path(std::string_view name) {
  return "/api/v1/nodes/" + escape_segment(name);
}

}  // namespace

struct KubernetesClusterState::Impl {
  std::shared_ptr<ApiClient> client;
  KubeClusterOptions options;
  KubeClusterStore store;

  std::array<std::unique_ptr<Reflector>, kCacheCount> reflectors;

  std::mutex listener_order_mu;
  mutable std::mutex sync_mu;
  mutable std::condition_variable sync_cv;
  std::array<ReflectorStatus, kCacheCount> statuses;
  bool synced = false;
  std::string detail = "not started";
  std::vector<std::function<void(bool, const std::string&)>> listeners;

  // Last: its thread uses the members above.
  std::unique_ptr<EventSink> events;

  Impl(std::shared_ptr<ApiClient> c, KubeClusterOptions o)
      : client(std::move(c)), options(std::move(o)), store(options.logger) {
    if (options.instance.empty())
      options.instance = host_name();
    EventRecorderOptions e;
    e.core_v1 = options.core_v1_events;
    e.component = options.component;
    e.instance = options.instance;
    e.clock = options.event_clock;
    e.object_version = [this](const cluster::Event& event) { return event_object_version(event); };
    e.logger = options.logger;
    events = std::make_unique<EventSink>(
        make_event_recorder(options.event_client ? options.event_client : client, std::move(e)),
        options.event_queue_capacity, options.logger, options.event_clock);
  }

  // The cached resourceVersion of a core v1 Event's pod (involvedObject).
  std::string event_object_version(const cluster::Event& event) const {
    if (event.kind == "Pod") {
      if (const auto pod = store.pod(event.namespace_, event.name);
          pod && (event.uid.empty() || pod->uid == event.uid)) {
        return pod->resource_version;
      }
    }
    return {};
  }

  // Recomputes synced/detail from the cache statuses; caller holds sync_mu.
  void recompute() {
    bool all = true;
    std::string why;
    for (size_t i = 0; i < kCacheCount; ++i) {
      if (statuses[i].synced)
        continue;
      all = false;
      if (!why.empty())
        why += "; ";
      why += kCacheNames[i];
      why += ": ";
      why +=
          statuses[i].error.empty() ? std::string("waiting for the first list") : statuses[i].error;
    }
    // Once synced, later relists and outages keep the last known state
    // (see the header): only the first full sync flips readiness.
    synced = synced || all;
    detail = synced ? std::string() : why;
  }

  void status_changed(size_t index, const ReflectorStatus& status) {
    update_sync([&] { statuses[index] = status; });
  }

  // "not started" → the per-cache detail.
  void started() {
    update_sync([] {});
  }

  // Applies `change` to the cache statuses, recomputes, and tells the
  // listeners (outside the lock) when synced/detail changed.
  template <typename Change>
  void update_sync(Change change) {
    // Held across compute and delivery, so listeners see changes in order.
    std::lock_guard order(listener_order_mu);
    std::vector<std::function<void(bool, const std::string&)>> to_call;
    bool now_synced = false;
    std::string now_detail;
    {
      std::lock_guard guard(sync_mu);
      const bool was_synced = synced;
      const std::string was_detail = detail;
      change();
      recompute();
      if (synced == was_synced && detail == was_detail)
        return;
      now_synced = synced;
      now_detail = detail;
      to_call = listeners;
    }
    sync_cv.notify_all();
    for (const auto& listener : to_call)
      listener(now_synced, now_detail);
  }

  std::function<void(bool)> restart_hook(size_t index) const {
    if (!options.watch_restarted)
      return {};
    return [this, index](bool relist) { options.watch_restarted(kCacheNames[index], relist); };
  }

  ReflectorOptions reflector_options(size_t index, std::string path) const {
    ReflectorOptions o;
    o.name = kCacheNames[index];
    o.path = std::move(path);
    o.page_size = options.list_page_size;
    o.watch_timeout = options.watch_timeout;
    o.backoff_initial = options.backoff_initial;
    o.backoff_max = options.backoff_max;
    o.logger = options.logger;
    return o;
  }

  void make_reflectors() {
    {
      auto o = reflector_options(kPods, "/api/v1/pods");
      o.copy = trim_pod;
      ReflectorHandlers h;
      h.replace = [this](Relist& r) { store.replace_pods(r); };
      h.added = h.modified = [this](const Value& pod) { store.upsert_pod(pod, false); };
      h.deleted = [this](const Value& pod) { store.delete_pod(pod); };
      h.status = [this](const ReflectorStatus& s) { status_changed(kPods, s); };
      h.restarted = restart_hook(kPods);
      reflectors[kPods] = std::make_unique<Reflector>(client, std::move(o), std::move(h));
    }
    {
      auto o = reflector_options(kNodes, "/api/v1/nodes");
      o.copy = trim_node;
      ReflectorHandlers h;
      h.replace = [this](Relist& r) { store.replace_nodes(r); };
      h.added = h.modified = [this](const Value& node) { store.upsert_node(node); };
      h.deleted = [this](const Value& node) { store.delete_node(node); };
      h.status = [this](const ReflectorStatus& s) { status_changed(kNodes, s); };
      h.restarted = restart_hook(kNodes);
      reflectors[kNodes] = std::make_unique<Reflector>(client, std::move(o), std::move(h));
    }
    {
      auto o = reflector_options(kQuotas, "/api/v1/resourcequotas");
      o.copy = trim_quota;
      ReflectorHandlers h;
      h.replace = [this](Relist& r) { store.replace_quotas(r); };
      h.added = h.modified = [this](const Value& quota) { store.upsert_quota(quota); };
      h.deleted = [this](const Value& quota) { store.delete_quota(quota); };
      h.status = [this](const ReflectorStatus& s) { status_changed(kQuotas, s); };
      h.restarted = restart_hook(kQuotas);
      reflectors[kQuotas] = std::make_unique<Reflector>(client, std::move(o), std::move(h));
    }
    {
      auto o = reflector_options(kNamespaces, "/api/v1/namespaces");
      o.copy = trim_namespace;
      ReflectorHandlers h;
      h.replace = [this](Relist& r) { store.replace_namespaces(r); };
      h.added = h.modified = [this](const Value& ns) { store.upsert_namespace(ns); };
      h.deleted = [this](const Value& ns) { store.delete_namespace(ns); };
      h.status = [this](const ReflectorStatus& s) { status_changed(kNamespaces, s); };
      h.restarted = restart_hook(kNamespaces);
      reflectors[kNamespaces] = std::make_unique<Reflector>(client, std::move(o), std::move(h));
    }
  }

  // Parses a reply body holding one object; false (logged) when it is not
  // a JSON object, which a 2xx reply of the API server never is.
  bool parse_reply(const ApiResponse& reply, rapidjson::Document& doc, std::string_view what) {
    doc.Parse(reply.body.data(), reply.body.size());
    if (doc.HasParseError() || !doc.IsObject()) {
      if (options.logger)
        options.logger->warn("unreadable API reply", {{"request", std::string(what)}});
      return false;
    }
    return true;
  }

  // Whether the server has the pod (of `uid`, when given) bound to `node`;
  // nullopt when it cannot be read.
  std::optional<bool> bound_to(std::string_view namespace_, std::string_view name,
                               std::string_view uid, std::string_view node) {
    try {
      const ApiResponse reply = client->get(pod_path(namespace_, name));
      rapidjson::Document doc;
      if (!parse_reply(reply, doc, "get pod"))
        return std::nullopt;
      const auto pod = cluster::make_pod_record(doc);
      return (uid.empty() || pod->uid == uid) && pod->node_name == node;
    } catch (const k8s::ObjectError&) {
      return std::nullopt;
    } catch (const ApiError& e) {
      if (e.status() == 404)
        return false;
      if (options.logger) {
        options.logger->warn(
            "pod re-read after a failed binding failed",
            {{"pod", std::string(namespace_) + "/" + std::string(name)}, {"error", e.what()}});
      }
      return std::nullopt;
    }
  }

  void refresh_node(std::string_view name) {
    try {
      const ApiResponse reply = client->get(node_path(name));
      rapidjson::Document doc;
      if (parse_reply(reply, doc, "get node"))
        store.upsert_node(doc);
    } catch (const ApiError& e) {
      if (e.status() == 404) {
        store.delete_node_named(name);
      } else if (options.logger) {
        options.logger->warn("node re-read after a conflict failed",
                             {{"node", std::string(name)}, {"error", e.what()}});
      }
    }
  }
};

KubernetesClusterState::KubernetesClusterState(std::shared_ptr<ApiClient> client,
                                               KubeClusterOptions options)
    : impl_(std::make_unique<Impl>(std::move(client), std::move(options))) {
  impl_->make_reflectors();
}

KubernetesClusterState::~KubernetesClusterState() {
  stop();
}

void KubernetesClusterState::start() {
  impl_->started();
  for (auto& r : impl_->reflectors)
    r->start();
}

void KubernetesClusterState::stop() {
  for (auto& r : impl_->reflectors)
    r->request_stop();
  for (auto& r : impl_->reflectors)
    r->stop();
}

bool KubernetesClusterState::synced() const {
  std::lock_guard guard(impl_->sync_mu);
  return impl_->synced;
}

bool KubernetesClusterState::wait_synced(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(impl_->sync_mu);
  return impl_->sync_cv.wait_for(lock, timeout, [&] { return impl_->synced; });
}

std::string KubernetesClusterState::sync_status() const {
  std::lock_guard guard(impl_->sync_mu);
  return impl_->detail;
}

void KubernetesClusterState::on_sync_change(
    std::function<void(bool synced, const std::string& detail)> listener) {
  std::lock_guard guard(impl_->sync_mu);
  impl_->listeners.push_back(std::move(listener));
}

std::shared_ptr<const k8s::NodeModel> KubernetesClusterState::node(std::string_view name) const {
  return impl_->store.node(name);
}

std::vector<std::shared_ptr<const k8s::NodeModel>> KubernetesClusterState::nodes() const {
  return impl_->store.nodes();
}

std::shared_ptr<const cluster::PodRecord> KubernetesClusterState::pod(std::string_view namespace_,
                                                                      std::string_view name) const {
  return impl_->store.pod(namespace_, name);
}

bool KubernetesClusterState::pod_exists(std::string_view namespace_, std::string_view name) const {
  if (impl_->store.pod(namespace_, name))
    return true;
  try {
    impl_->client->get(pod_path(namespace_, name));
    return true;
  } catch (const ApiError& e) {
    return e.status() != 404;
  }
}

std::vector<std::shared_ptr<const cluster::PodRecord>> KubernetesClusterState::pods() const {
  return impl_->store.pods();
}

std::vector<cluster::ResourceQuotaRecord> KubernetesClusterState::quotas() const {
  return impl_->store.quotas();
}

std::vector<cluster::NamespaceRecord> KubernetesClusterState::namespaces() const {
  return impl_->store.namespaces();
}

void KubernetesClusterState::watch(cluster::ClusterWatcher& watcher) {
  impl_->store.watch(watcher);
}

void KubernetesClusterState::unwatch(cluster::ClusterWatcher& watcher) {
  impl_->store.unwatch(watcher);
}

void KubernetesClusterState::patch_pod_metadata(std::string_view namespace_, std::string_view name,
                                                const cluster::PodMetadataPatch& patch,
                                                std::optional<std::string_view> expected_uid) {
  const std::string_view uid = expected_uid.value_or(std::string_view());
  const bool guarded = !uid.empty() || patch.expect_resource_version || patch.expect_unbound ||
                       !patch.expect_annotations.empty() || !patch.expect_labels.empty() ||
                       !patch.expect_absent_annotations.empty() ||
                       !patch.expect_absent_labels.empty();
  ApiResponse reply;
  if (!guarded) {
    try {
      reply = impl_->client->patch(pod_path(namespace_, name), PatchType::merge,
                                   pod_metadata_patch_body(patch));
    } catch (const ApiError& e) {
      throw cluster_error(e);
    }
  } else {
    // The preconditions travel as `test` operations and the server judges
    // them; the pod the patch is shaped against is the cached one, or the
    // server's when the cache holds another pod of that name.
    auto known = impl_->store.pod(namespace_, name);
    if (!known || (!uid.empty() && known->uid != uid)) {
      known = pod_live(namespace_, name);
      if (!known)
        throw cluster::ClusterError(cluster::ErrorKind::NotFound,
                                    "pods \"" + std::string(name) + "\" not found");
      if (std::string unmet = cluster::unmet_precondition(*known, patch, expected_uid);
          !unmet.empty()) {
        throw cluster::ClusterError(cluster::ErrorKind::Conflict, unmet);
      }
    }
    const auto maps = [](const cluster::PodRecord& pod) {
      return std::pair(pod.model && pod.model->has_annotations(),
                       pod.model && pod.model->has_labels());
    };
    for (bool reshaped = false;;) {
      try {
        reply = impl_->client->patch(pod_path(namespace_, name), PatchType::json,
                                     pod_metadata_json_patch_body(patch, uid, known.get()));
        break;
      } catch (const ApiError& e) {
        if (e.status() != 422 && e.status() != 409)
          throw cluster_error(e);
        // A `test` failed, or the patch was shaped on maps the server's pod
        // no longer has as `known` had them: nothing was written. The pod
        // as it is now says which.
        std::string message = e.message().empty() ? std::string(e.what()) : e.message();
        std::shared_ptr<const cluster::PodRecord> current;
        try {
          current = pod_live(namespace_, name);
        } catch (const cluster::ClusterError&) {
          // The server's own text stands.
        }
        if (current) {
          if (std::string unmet = cluster::unmet_precondition(*current, patch, expected_uid);
              !unmet.empty()) {
            throw cluster::ClusterError(cluster::ErrorKind::Conflict, unmet, false);
          }
          // Every precondition holds there: someone added or dropped the
          // annotation or label map. Once more, shaped on the server's pod
          // (the preconditions travel again).
          if (!reshaped && maps(*current) != maps(*known)) {
            known = std::move(current);
            reshaped = true;
            continue;
          }
        }
        throw cluster::ClusterError(cluster::ErrorKind::Conflict, message, false);
      }
    }
  }
  rapidjson::Document doc;
  if (impl_->parse_reply(reply, doc, "patch pod"))
    impl_->store.upsert_pod(doc, false);
}

std::shared_ptr<const cluster::PodRecord> KubernetesClusterState::pod_live(
    std::string_view namespace_, std::string_view name) {
  ApiResponse reply;
  try {
    reply = impl_->client->get(pod_path(namespace_, name));
  } catch (const ApiError& e) {
    if (e.status() == 404)
      return nullptr;
    throw cluster_error(e);
  }
  rapidjson::Document doc;
  if (!impl_->parse_reply(reply, doc, "get pod"))
    throw cluster::ClusterError(cluster::ErrorKind::Unavailable,
                                "unreadable pod from the API server");
  impl_->store.upsert_pod(doc, false);
  try {
    return cluster::make_pod_record(doc);
  } catch (const k8s::ObjectError& e) {
    throw cluster::ClusterError(cluster::ErrorKind::Invalid, e.what());
  }
}

std::shared_ptr<const k8s::NodeModel> KubernetesClusterState::node_live(std::string_view name) {
  try {
    const ApiResponse reply = impl_->client->get(node_path(name));
    rapidjson::Document doc;
    if (!impl_->parse_reply(reply, doc, "get node"))
      throw cluster::ClusterError(cluster::ErrorKind::Unavailable,
                                  "unreadable node from the API server");
    impl_->store.upsert_node(doc);
  } catch (const ApiError& e) {
    if (e.status() != 404)
      throw cluster_error(e);
    impl_->store.delete_node_named(name);
    return nullptr;
  }
  return impl_->store.node(name);
}

void KubernetesClusterState::patch_node_annotations(
    std::string_view node, const std::vector<cluster::MetadataWrite>& annotations,
    std::optional<std::string_view> expected_resource_version) {
  ApiResponse reply;
  try {
    reply =
        impl_->client->patch(node_path(node), PatchType::merge,
                             node_annotations_patch_body(annotations, expected_resource_version));
  } catch (const ApiError& e) {
    // The caller (the node lock) retries on what the cache holds: make that
    // the server's current node before reporting a conflict. After a 5xx or
    // a timeout the write may have been stored, and the caller can only
    // undo what the cache shows.
    if (e.status() == 409 || e.status() == 0 || e.status() >= 500)
      impl_->refresh_node(node);
    throw cluster_error(e);
  }
  rapidjson::Document doc;
  if (impl_->parse_reply(reply, doc, "patch node"))
    impl_->store.upsert_node(doc);
}

void KubernetesClusterState::bind(std::string_view namespace_, std::string_view name,
                                  std::string_view uid, std::string_view node) {
  try {
    impl_->client->post(pod_path(namespace_, name) + "/binding",
                        binding_body(namespace_, name, uid, node));
  } catch (const ApiError& e) {
    if (e.status() == 409) {
      // A retried bind whose first attempt went through: the pod is on the
      // very node asked for, which is what the caller wanted.
      const std::string same = "is already assigned to node \"" + std::string(node) + "\"";
      if (e.message().find(same) != std::string::npos) {
        impl_->store.mark_bound(namespace_, name, node, uid);
        return;
      }
    }
    // A 5xx or a timeout may come after the server stored the Binding: the
    // pod, read back, says. The caller removes the pod's allocation after a
    // failed bind, which must not happen to a pod bound with it.
    if (e.status() == 0 || e.status() >= 500) {
      const auto bound = impl_->bound_to(namespace_, name, uid, node);
      if (bound.value_or(false)) {
        impl_->store.mark_bound(namespace_, name, node, uid);
        return;
      }
      // Read back unbound: the Binding was not stored, which settles it.
      if (bound) {
        const cluster::ClusterError unknown = cluster_error(e);
        throw cluster::ClusterError(unknown.kind(), unknown.what(), false);
      }
    }
    throw cluster_error(e);
  }
  impl_->store.mark_bound(namespace_, name, node, uid);
}

void KubernetesClusterState::record_event(const cluster::Event& event) {
  impl_->events->submit(event);
}

bool KubernetesClusterState::flush_events(std::chrono::milliseconds timeout) {
  return impl_->events->drain(timeout);
}

}  // namespace hami::kube
