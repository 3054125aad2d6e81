// FakeApiServer: a real HTTP(S) server on 127.0.0.1 that behaves like the
// Kubernetes API server for what hami-scheduler uses, so the Kubernetes
// backend is tested over real sockets, chunked watch streams and all.
//
// Resources (core v1 unless noted), each with list (limit/continue,
// fieldSelector metadata.name / metadata.namespace / spec.nodeName,
// labelSelector key=value[,…]), watch (watch=1, resourceVersion,
// allowWatchBookmarks, timeoutSeconds, sendInitialEvents), get, create
// (POST), update (PUT with resourceVersion precondition), patch (merge and
// JSON patch; metadata.resourceVersion in a merge patch is a precondition →
// 409 Conflict; a JSON-patch `test` op that fails — on
// /metadata/resourceVersion or anything else — is 422 Invalid, as the real
// server answers, and a `test` for null passes on an absent member; strategic
// merge patch is applied as a merge patch) and delete (immediate, no
// graceful deletion). Creates, updates and patches validate
// metadata.labels as the real server does (422 Invalid):
//   pods           /api/v1/pods, /api/v1/namespaces/{ns}/pods[/{name}]
//   pods/binding   POST /api/v1/namespaces/{ns}/pods/{name}/binding
//                  (uid precondition; 409 when already assigned)
//   nodes          /api/v1/nodes[/{name}]
//   namespaces     /api/v1/namespaces[/{name}]
//   resourcequotas /api/v1/resourcequotas, /api/v1/namespaces/{ns}/resourcequotas[/{name}]
//   events         /api/v1/namespaces/{ns}/events, /apis/events.k8s.io/v1/namespaces/{ns}/events
//   leases         /apis/coordination.k8s.io/v1/namespaces/{ns}/leases[/{name}]
//   secrets        /api/v1/secrets, /api/v1/namespaces/{ns}/secrets[/{name}]
//   mutatingwebhookconfigurations
//                  /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations[/{name}]
// Errors are Status objects as the API server writes them (fixtures in
// /work/shared/fixtures/apiserver: 404 NotFound, 409 Conflict /
// AlreadyExists / already assigned, 410 Expired, 429 TooManyRequests).
//
// One store-wide revision, as etcd: every write bumps it and stamps the
// object's metadata.resourceVersion. Watches replay history after the
// requested resourceVersion; a resourceVersion older than the kept history
// (see compact()) gets a 200 stream with one ERROR event of code 410
// "too old resource version: X (Y)", as the real server sends it.
//
// Also as the real server: items of a list have no kind/apiVersion; a PUT
// or patch that changes nothing writes nothing (no new revision); a watch
// on a field selector sees an object leaving the selection as DELETED and
// one entering it as ADDED. The list resourceVersion parameter as the real
// server reads it (fake_rest.hpp): unset or 0 the latest state, 0 whole
// (from the watch cache, options.watch_cache), a value with limit exactly
// that revision (410 once compacted), a value without limit the latest
// state (504 "Too large resource version" when ahead of it).
// Differences: BOOKMARKs are sent only when send_bookmarks() is called (the
// real server sends one about every minute), or at the end of the initial
// events of a sendInitialEvents watch; the legacy /api/v1/watch/... paths and
// subresources other than pods/binding (e.g. status) are not served (404).
// Stopping a server takes up to a quarter second (Poco's accept loop).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hami::testing {

struct FakeApiServerOptions {
  bool tls = false;        // serve HTTPS with a self-signed certificate (ca_pem())
  std::string token;       // required bearer token; empty: no authentication
  size_t history = 10000;  // write events kept for watch resumption
  // With tls: clients must present a certificate signed by one of these
  // (PEM); the handshake fails otherwise. Empty: none asked for.
  std::string client_ca_pem;
  // The API server's watch cache: lists at resourceVersion=0, and at a
  // resourceVersion without limit, are answered whole from the current
  // state, limit ignored. false: limit is honoured at 0 too (a server
  // without watch cache, where etcd pages every list).
  bool watch_cache = true;
};

struct RecordedRequest {
  std::string method;
  std::string path;   // without the query
  std::string query;  // raw, without '?'
  std::string content_type;
  std::string authorization;
  std::string client_cn;  // subject CN of the verified client certificate; empty: none
  std::string body;
  int status = 0;  // what the server answered
  bool watch = false;
};

class FakeApiServer {
 public:
  explicit FakeApiServer(FakeApiServerOptions options = {});
  ~FakeApiServer();  // closes every stream, stops the server
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  std::string url() const;  // "http://127.0.0.1:PORT" or "https://127.0.0.1:PORT"
  uint16_t port() const;
  std::string ca_pem() const;  // the serving certificate (tls), else empty

  // --- state ----------------------------------------------------------------
  // Creates or replaces an object given as JSON with `kind` (Pod, Node,
  // Namespace, ResourceQuota, Lease, Event, Secret, ConfigMap,
  // MutatingWebhookConfiguration); fills metadata.uid and
  // creationTimestamp when missing, stamps resourceVersion, tells watchers
  // (ADDED or MODIFIED). Returns the new resourceVersion.
  std::string apply(std::string_view object_json);
  // Deletes (DELETED to watchers); false when absent.
  bool remove(std::string_view kind, std::string_view namespace_, std::string_view name);
  // The stored object as JSON; nullopt when absent. Cluster-scoped kinds
  // (Node, Namespace, MutatingWebhookConfiguration) take an empty namespace.
  std::optional<std::string> object(std::string_view kind, std::string_view namespace_,
                                    std::string_view name) const;
  std::vector<std::string> objects(std::string_view kind) const;
  uint64_t revision() const;

  std::vector<RecordedRequest> requests() const;
  void clear_requests();
  size_t open_watches() const;
  // Blocks until at least `count` watches are open or `timeout` passes.
  bool wait_open_watches(size_t count, std::chrono::milliseconds timeout) const;

  // --- faults -----------------------------------------------------------------
  // Cuts every open watch stream mid-way (no terminating chunk).
  void drop_watches();
  // Forgets the write history: a later watch from an older resourceVersion
  // than the current revision gets the 410 ERROR event, and every list
  // continuation token issued before is answered 410 Expired.
  void compact();
  // Sends an ERROR event with this Status into every open watch, then ends
  // the streams.
  void send_watch_error(int code, std::string_view reason, std::string_view message);
  // Sends a BOOKMARK with the current revision into every open watch that
  // asked for bookmarks.
  void send_bookmarks();
  // The next `count` requests whose method matches (empty: any) and whose
  // path starts with `path_prefix` are answered `status` with a Status body
  // (reason from the code: 403 Forbidden as RBAC refuses an anonymous
  // client, 409 Conflict, 410 Expired, 429 TooManyRequests, 500
  // InternalError, 503 ServiceUnavailable), with a Retry-After header
  // when `retry_after_seconds` is set. Watches count too.
  void fail_next(std::string method, std::string path_prefix, int status, int count = 1,
                 std::optional<int> retry_after_seconds = std::nullopt);
  // The same for requests that are carried out first: the write is stored
  // (and watches see it), then answered `status` — a server that committed
  // a change and failed or timed out before it could say so.
  void fail_next_after_applying(std::string method, std::string path_prefix, int status,
                                int count = 1);
  // Every non-watch reply is delayed by this much.
  void set_latency(std::chrono::milliseconds latency);
  // Rotation: from now on only `token` is accepted (401 otherwise).
  void set_token(std::string token);
  // Refuses new connections (closes them at once) until called with false.
  void set_refusing(bool refusing);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hami::testing
