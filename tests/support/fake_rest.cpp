#include "fake_rest.hpp"

#include <charconv>
#include <random>

#include "fake_patch.hpp"
#include "fake_selectors.hpp"
#include "fake_status.hpp"
#include "fake_validation.hpp"

namespace hami::testing::fake {
namespace {

using Lock = std::lock_guard<std::mutex>;

Reply fail(Json status) {
  const int code = status["code"].get<int>();
  return Reply{code, std::move(status)};
}

std::optional<uint64_t> parse_u64(std::string_view text) {
  uint64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return v;
}

std::optional<Json> parse_body(const std::string& body) {
  Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    return std::nullopt;
  }
  return j;
}

std::string object_ns(const Route& route) {
  return route.kind->namespaced ? route.ns : std::string();
}

// Items of a list reply carry no kind/apiVersion, as on the real server.
Json list_item(const Json& object) {
  Json item = object;
  item.erase("kind");
  item.erase("apiVersion");
  return item;
}

std::string continue_token(uint64_t revision, const std::string& last_key) {
  Json t = Json::object();
  t["v"] = "meta.k8s.io/v1";
  t["rv"] = revision;
  t["start"] = last_key + std::string(1, '\0');
  return base64url_encode(t.dump());
}

Reply do_list(ServerState& state, const RestRequest& req) {
  const Route& route = req.route;
  const Query& q = *req.query;
  std::string error;
  auto fields = Selector::parse_fields(q.get("fieldSelector"), *route.kind, error);
  if (!fields) {
    return fail(status_bad_request(error));
  }
  auto labels = Selector::parse_labels(q.get("labelSelector"), error);
  if (!labels) {
    return fail(status_bad_request(error));
  }
  size_t limit = 0;
  if (q.has("limit")) {
    const auto l = parse_u64(q.get("limit"));
    if (!l) {
      return fail(status_bad_request("limit: invalid value \"" + q.get("limit") + "\""));
    }
    limit = static_cast<size_t>(*l);
  }
  std::string start;
  uint64_t token_rev = 0;
  const std::string cont = q.get("continue");
  if (!cont.empty()) {
    const auto raw = base64url_decode(cont);
    Json t = raw ? Json::parse(*raw, nullptr, false) : Json();
    if (!t.is_object() || !t.contains("rv") || !t["rv"].is_number_unsigned() ||
        !t.contains("start") || !t["start"].is_string()) {
      return fail(
          status_bad_request("continue key is not valid: incorrect encoded start "
                             "resourceVersion (version meta.k8s.io/v1)"));
    }
    token_rev = t["rv"].get<uint64_t>();
    start = t["start"].get<std::string>();
  }
  const std::string rv_text = q.get("resourceVersion");
  std::optional<uint64_t> at;  // a resourceVersion other than 0
  if (!rv_text.empty() && rv_text != "0") {
    if (!cont.empty()) {
      return fail(
          status_bad_request("specifying resource version is not allowed when using continue"));
    }
    at = parse_u64(rv_text);
    if (!at) {
      return fail(status_bad_request("resourceVersion: Invalid value: \"" + rv_text +
                                     "\": must be a number"));
    }
  }
  // Served by the watch cache: the latest state, whole.
  if (rv_text == "0" && state.watch_cache) {
    limit = 0;
  }

  Lock lock(state.mu);
  Store& store = state.store;
  std::vector<std::pair<std::string, std::shared_ptr<const Json>>> items;
  uint64_t revision = store.revision();
  if (!cont.empty()) {
    // A continuation reads the snapshot its first page was read from.
    auto snap =
        token_rev >= store.compacted() ? store.at_revision(*route.kind, token_rev) : std::nullopt;
    if (!snap) {
      return fail(status_continue_expired());
    }
    items = std::move(*snap);
    revision = token_rev;
  } else if (at && *at > revision) {
    return fail(status_too_large(*at, revision));
  } else if (at && limit != 0) {
    // The legacy exact read: the revision asked, from etcd.
    auto snap = *at >= store.compacted() ? store.at_revision(*route.kind, *at) : std::nullopt;
    if (!snap) {
      return fail(status_list_too_old());
    }
    items = std::move(*snap);
    revision = *at;
  } else {
    for (auto& obj : store.all(*route.kind)) {
      items.emplace_back(Store::key(meta_string(*obj, "namespace"), meta_string(*obj, "name")),
                         obj);
    }
  }
  Json out = Json::object();
  out["kind"] = std::string(route.kind->list_kind);
  out["apiVersion"] = route.api_version;
  out["metadata"] = Json::object();
  out["metadata"]["resourceVersion"] = std::to_string(revision);
  Json list = Json::array();
  std::string last_key;
  size_t remaining = 0;
  for (const auto& [k, obj] : items) {
    if (!start.empty() && k < start) {
      continue;
    }
    const std::string ns = object_ns(route);
    if (!ns.empty() && meta_string(*obj, "namespace") != ns) {
      continue;
    }
    if (!fields->matches(*obj) || !labels->matches(*obj)) {
      continue;
    }
    if (limit != 0 && list.size() == limit) {
      ++remaining;
      continue;
    }
    list.push_back(list_item(*obj));
    last_key = k;
  }
  if (remaining > 0) {
    out["metadata"]["continue"] = continue_token(revision, last_key);
    // The real server counts the rest only when no selector filters it.
    if (fields->empty() && labels->empty()) {
      out["metadata"]["remainingItemCount"] = remaining;
    }
  }
  out["items"] = std::move(list);
  return Reply{200, std::move(out)};
}

Reply do_get(ServerState& state, const RestRequest& req) {
  Lock lock(state.mu);
  const Json* obj = state.store.find(*req.route.kind, req.route.ns, req.route.name);
  if (obj == nullptr) {
    return fail(status_not_found(req.route.kind->qualified_resource(), req.route.name));
  }
  return Reply{200, *obj};
}

std::string generated_name(const std::string& prefix) {
  static constexpr std::string_view kChars = "bcdfghjklmnpqrstvwxz2456789";
  std::random_device rd;
  std::string out = prefix;
  for (int i = 0; i < 5; ++i) {
    out.push_back(kChars[rd() % kChars.size()]);
  }
  return out;
}

// Checks the body's kind and namespace against the request; fills the
// namespace from the URL when the body has none.
std::optional<Reply> check_body(const RestRequest& req, Json& body) {
  if (!body.is_object()) {
    return fail(status_bad_request("the body of the request is not a JSON object"));
  }
  const KindInfo& kind = *req.route.kind;
  if (body.contains("kind") && body["kind"] != std::string(kind.kind)) {
    return fail(status_bad_request("the kind of the provided object (" + body["kind"].dump() +
                                   ") does not match the resource " + kind.qualified_resource()));
  }
  Json& meta = metadata(body);
  if (kind.namespaced) {
    const std::string ns = meta_string(body, "namespace");
    if (ns.empty()) {
      meta["namespace"] = req.route.ns;
    } else if (ns != req.route.ns) {
      return fail(status_bad_request(
          "the namespace of the provided object does not match the namespace sent on the "
          "request"));
    }
  }
  return std::nullopt;
}

Reply do_create(ServerState& state, const RestRequest& req) {
  const KindInfo& kind = *req.route.kind;
  if (kind.namespaced && req.route.ns.empty()) {
    return fail(status_failure(405, "MethodNotAllowed",
                               "the server does not allow this method on the requested resource"));
  }
  auto body = parse_body(req.body);
  if (!body) {
    return fail(status_bad_request("the body of the request is not valid JSON"));
  }
  if (auto bad = check_body(req, *body)) {
    return *bad;
  }
  Json& meta = metadata(*body);
  // The server owns these on create.
  meta.erase("resourceVersion");
  meta.erase("uid");
  meta.erase("creationTimestamp");
  Lock lock(state.mu);
  std::string name = meta_string(*body, "name");
  const std::string prefix = meta_string(*body, "generateName");
  if (name.empty() && !prefix.empty()) {
    do {
      name = generated_name(prefix);
    } while (state.store.find(kind, req.route.ns, name) != nullptr);
    meta["name"] = name;
  }
  if (name.empty()) {
    return fail(status_failure(422, "Invalid",
                               std::string(kind.kind) +
                                   " \"\" is invalid: metadata.name: Required value: name or "
                                   "generateName is required"));
  }
  if (auto invalid = invalid_labels(kind, *body)) {
    return fail(std::move(*invalid));
  }
  if (state.store.find(kind, req.route.ns, name) != nullptr) {
    return fail(status_already_exists(kind.qualified_resource(), name));
  }
  auto stored = state.store.put(kind, std::move(*body));
  state.changed.notify_all();
  return Reply{201, *stored};
}

// Writes `updated` over `current` unless nothing changed. Caller holds mu.
Reply write_update(ServerState& state, const KindInfo& kind, const Json& current, Json updated) {
  Json& meta = metadata(updated);
  meta["uid"] = current["metadata"]["uid"];
  meta["creationTimestamp"] = current["metadata"]["creationTimestamp"];
  meta["resourceVersion"] = current["metadata"]["resourceVersion"];
  if (!updated.contains("kind")) {
    updated["kind"] = current["kind"];
  }
  if (!updated.contains("apiVersion")) {
    updated["apiVersion"] = current["apiVersion"];
  }
  if (updated == current) {
    return Reply{200, current};
  }
  auto stored = state.store.put(kind, std::move(updated));
  state.changed.notify_all();
  return Reply{200, *stored};
}

Reply do_update(ServerState& state, const RestRequest& req) {
  const KindInfo& kind = *req.route.kind;
  auto body = parse_body(req.body);
  if (!body) {
    return fail(status_bad_request("the body of the request is not valid JSON"));
  }
  if (auto bad = check_body(req, *body)) {
    return *bad;
  }
  const std::string name = meta_string(*body, "name");
  if (name != req.route.name) {
    return fail(status_bad_request("the name of the object (" + name +
                                   ") does not match the name on the URL (" + req.route.name +
                                   ")"));
  }
  Lock lock(state.mu);
  const Json* current = state.store.find(kind, req.route.ns, req.route.name);
  if (current == nullptr) {
    return fail(status_not_found(kind.qualified_resource(), req.route.name));
  }
  const std::string rv = meta_string(*body, "resourceVersion");
  if (!rv.empty() && rv != meta_string(*current, "resourceVersion")) {
    return fail(status_conflict(kind.qualified_resource(), req.route.name, kObjectModified));
  }
  if (auto invalid = invalid_labels(kind, *body)) {
    return fail(std::move(*invalid));
  }
  return write_update(state, kind, *current, std::move(*body));
}

Reply do_patch(ServerState& state, const RestRequest& req) {
  const KindInfo& kind = *req.route.kind;
  const std::string& ct = req.content_type;
  const bool merge =
      ct == "application/merge-patch+json" || ct == "application/strategic-merge-patch+json";
  const bool json_patch = ct == "application/json-patch+json";
  if (!merge && !json_patch) {
    return fail(status_failure(
        415, "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, "
        "application/strategic-merge-patch+json"));
  }
  auto patch = parse_body(req.body);
  if (!patch || (merge && !patch->is_object())) {
    return fail(status_bad_request("the body of the request is not a valid patch"));
  }
  Lock lock(state.mu);
  const Json* current = state.store.find(kind, req.route.ns, req.route.name);
  if (current == nullptr) {
    return fail(status_not_found(kind.qualified_resource(), req.route.name));
  }
  Json patched;
  if (merge) {
    patched = apply_merge_patch(*current, *patch);
  } else {
    std::string error;
    auto result = apply_json_patch(*current, *patch, error);
    if (!result) {
      return fail(status_patch_invalid());
    }
    patched = std::move(*result);
  }
  // A resourceVersion (or uid) the patch sets is a precondition on the
  // stored object, as the real server's update path treats it.
  const std::string rv = meta_string(patched, "resourceVersion");
  if (!rv.empty() && rv != meta_string(*current, "resourceVersion")) {
    return fail(status_conflict(kind.qualified_resource(), req.route.name, kObjectModified));
  }
  const std::string uid = meta_string(patched, "uid");
  if (!uid.empty() && uid != meta_string(*current, "uid")) {
    return fail(status_conflict(kind.qualified_resource(), req.route.name,
                                "Precondition failed: UID in precondition: " + uid +
                                    ", UID in object meta: " + meta_string(*current, "uid")));
  }
  if (meta_string(patched, "name") != req.route.name ||
      meta_string(patched, "namespace") != meta_string(*current, "namespace")) {
    return fail(status_bad_request("metadata.name and metadata.namespace cannot be patched"));
  }
  if (auto invalid = invalid_labels(kind, patched)) {
    return fail(std::move(*invalid));
  }
  return write_update(state, kind, *current, std::move(patched));
}

Reply do_delete(ServerState& state, const RestRequest& req) {
  const KindInfo& kind = *req.route.kind;
  Json options = req.body.empty() ? Json::object() : Json::parse(req.body, nullptr, false);
  if (options.is_discarded() || !options.is_object()) {
    return fail(status_bad_request("the body of the request is not valid DeleteOptions"));
  }
  Lock lock(state.mu);
  const Json* current = state.store.find(kind, req.route.ns, req.route.name);
  if (current == nullptr) {
    return fail(status_not_found(kind.qualified_resource(), req.route.name));
  }
  if (options.contains("preconditions") && options["preconditions"].is_object()) {
    const Json& pre = options["preconditions"];
    const std::string uid = meta_string(*current, "uid");
    const std::string rv = meta_string(*current, "resourceVersion");
    if (pre.contains("uid") && pre["uid"].is_string() && pre["uid"] != uid) {
      return fail(status_conflict(
          kind.qualified_resource(), req.route.name,
          "Precondition failed: UID in precondition: " + pre["uid"].get<std::string>() +
              ", UID in object meta: " + uid));
    }
    if (pre.contains("resourceVersion") && pre["resourceVersion"].is_string() &&
        pre["resourceVersion"] != rv) {
      return fail(status_conflict(kind.qualified_resource(), req.route.name,
                                  "Precondition failed: ResourceVersion in precondition: " +
                                      pre["resourceVersion"].get<std::string>() +
                                      ", ResourceVersion in object meta: " + rv));
    }
  }
  const std::string uid = meta_string(*current, "uid");
  auto gone = state.store.erase(kind, req.route.ns, req.route.name);
  state.changed.notify_all();
  if (kind.kind == "Pod") {
    return Reply{200, *gone};
  }
  Json details = Json::object();
  details["name"] = req.route.name;
  if (!kind.group.empty()) {
    details["group"] = std::string(kind.group);
  }
  details["kind"] = std::string(kind.resource);
  details["uid"] = uid;
  return Reply{200, status_success(200, std::move(details))};
}

Reply do_binding(ServerState& state, const RestRequest& req) {
  auto body = parse_body(req.body);
  if (!body || !body->is_object()) {
    return fail(status_bad_request("the body of the request is not a valid Binding"));
  }
  const std::string name = meta_string(*body, "name");
  const std::string pod_name = req.route.legacy_bindings ? name : req.route.name;
  if (name != pod_name) {
    return fail(status_bad_request("name in URL does not match name in Binding object"));
  }
  const std::string body_ns = meta_string(*body, "namespace");
  if (!body_ns.empty() && body_ns != req.route.ns) {
    return fail(status_bad_request(
        "the namespace of the provided object does not match the namespace sent on the "
        "request"));
  }
  const Json target = body->value("target", Json::object());
  const std::string target_kind = target.value("kind", std::string());
  const std::string node = target.value("name", std::string());
  if (!target_kind.empty() && target_kind != "Node") {
    return fail(status_failure(422, "Invalid",
                               "Binding.core \"" + pod_name +
                                   "\" is invalid: target.kind: Unsupported value: \"" +
                                   target_kind + "\": supported values: \"Node\""));
  }
  if (node.empty()) {
    return fail(status_failure(
        422, "Invalid",
        "Binding.core \"" + pod_name + "\" is invalid: target.name: Required value"));
  }
  const KindInfo& pods = *kind_by_name("Pod");
  Lock lock(state.mu);
  const Json* current = state.store.find(pods, req.route.ns, pod_name);
  if (current == nullptr) {
    return fail(status_not_found("pods", pod_name));
  }
  const std::string want_uid = meta_string(*body, "uid");
  const std::string have_uid = meta_string(*current, "uid");
  const std::string want_rv = meta_string(*body, "resourceVersion");
  const std::string have_rv = meta_string(*current, "resourceVersion");
  const std::string storage_error = "StorageError: invalid object, Code: 4, Key: /registry/pods/" +
                                    req.route.ns + "/" + pod_name +
                                    ", ResourceVersion: 0, AdditionalErrorMsg: ";
  if (!want_uid.empty() && want_uid != have_uid) {
    return fail(status_conflict("pods/binding", pod_name,
                                storage_error + "Precondition failed: UID in precondition: " +
                                    want_uid + ", UID in object meta: " + have_uid));
  }
  if (!want_rv.empty() && want_rv != have_rv) {
    return fail(status_conflict(
        "pods/binding", pod_name,
        storage_error + "Precondition failed: ResourceVersion in precondition: " + want_rv +
            ", ResourceVersion in object meta: " + have_rv));
  }
  if (!meta_string(*current, "deletionTimestamp").empty()) {
    return fail(
        status_conflict("pods/binding", pod_name,
                        "pod " + pod_name + " is being deleted, cannot be assigned to a host"));
  }
  const std::string assigned = field_value(*current, "spec.nodeName");
  if (!assigned.empty()) {
    return fail(status_already_assigned(pod_name, assigned));
  }
  Json pod = *current;
  pod["spec"]["nodeName"] = node;
  const Json& meta = (*body)["metadata"];
  if (meta.contains("annotations") && meta["annotations"].is_object()) {
    Json& annotations = metadata(pod)["annotations"];
    if (!annotations.is_object()) {
      annotations = Json::object();
    }
    for (const auto& [k, v] : meta["annotations"].items()) {
      annotations[k] = v;
    }
  }
  Json condition = Json::object();
  condition["type"] = "PodScheduled";
  condition["status"] = "True";
  condition["lastProbeTime"] = nullptr;
  condition["lastTransitionTime"] = now_rfc3339();
  Json& status = pod["status"];
  if (!status.is_object()) {
    status = Json::object();
  }
  Json& conditions = status["conditions"];
  if (!conditions.is_array()) {
    conditions = Json::array();
  }
  bool replaced = false;
  for (Json& c : conditions) {
    if (c.is_object() && c.value("type", std::string()) == "PodScheduled") {
      c = condition;
      replaced = true;
    }
  }
  if (!replaced) {
    conditions.push_back(condition);
  }
  state.store.put(pods, std::move(pod));
  state.changed.notify_all();
  return Reply{201, status_success(201)};
}

}  // namespace

Reply handle_rest(ServerState& state, const RestRequest& req) {
  const Route& route = req.route;
  const std::string& m = req.method;
  if (route.legacy_bindings || !route.subresource.empty()) {
    if (m == "POST") {
      return do_binding(state, req);
    }
  } else if (route.name.empty()) {
    if (m == "GET") {
      return do_list(state, req);
    }
    if (m == "POST") {
      return do_create(state, req);
    }
  } else {
    if (m == "GET") {
      return do_get(state, req);
    }
    if (m == "PUT") {
      return do_update(state, req);
    }
    if (m == "PATCH") {
      return do_patch(state, req);
    }
    if (m == "DELETE") {
      return do_delete(state, req);
    }
  }
  return fail(status_failure(405, "MethodNotAllowed",
                             "the server does not allow this method on the requested resource"));
}

}  // namespace hami::testing::fake
