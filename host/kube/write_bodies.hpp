// The request bodies KubernetesClusterState sends, built exactly as the API
// server expects them (shared/fixtures/apiserver/*-body.json give the
// member order). Pure functions, so tests compare them byte for byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_state.hpp"

namespace hami::kube {

// {"metadata":{"annotations":{k:v|null,…},"labels":{…}}}; an empty map is
// left out.
std::string pod_metadata_patch_body(const cluster::PodMetadataPatch& patch);

// The same write as an RFC 6902 JSON Patch led by its preconditions as
// `test` operations, in this order: metadata.uid (when `uid` is not
// empty), metadata.resourceVersion (when expected), spec.nodeName and
// metadata.deletionTimestamp absent (expect_unbound), a map absent (see
// below), each expected annotation and label value, each annotation and
// label expected absent; then one operation per write (`add`, or `remove`
// for a removal). Absence is a `test` for null, which the API server's
// patch library (evanphx/json-patch v4) passes only on an absent member
// of an existing map. `known` is the pod the patch is shaped against: a
// map it lacks (has_annotations / has_labels) is added whole, with its
// removals left out, behind a test that the map is still absent (adding it
// would replace any the server has); that test also stands for the keys
// of that map expected absent. A removal of a key `known` lacks is left
// out (JSON Patch fails on it). Null `known`: both maps are taken to
// exist. A patch shaped on a map the server has since added or dropped is
// refused (422) like a failed precondition.
std::string pod_metadata_json_patch_body(const cluster::PodMetadataPatch& patch,
                                         std::string_view uid, const cluster::PodRecord* known);

// {"metadata":{"resourceVersion":"<rv>","annotations":{k:v|null,…}}}; the
// resourceVersion (a precondition: 409 when the node changed) only when
// given.
std::string node_annotations_patch_body(const std::vector<cluster::MetadataWrite>& annotations,
                                        std::optional<std::string_view> resource_version);

// A Binding of pod namespace/name (uid as a precondition; left out when
// empty) to node `node`.
std::string binding_body(std::string_view namespace_, std::string_view name, std::string_view uid,
                         std::string_view node);

// What an Event body needs besides the cluster::Event itself.
struct EventStamp {
  std::string name;              // metadata.name: "<object>.<hex nanos>"
  int64_t unix_nanos = 0;        // when it happened
  std::string component;         // reportingController / source.component
  std::string instance;          // reportingInstance
  std::string resource_version;  // of the involved object (core v1 only); empty: left out
};

// "<object>.<16 hex digits of unix_nanos>".
std::string event_name(std::string_view object, int64_t unix_nanos);

// events.k8s.io/v1 Event. action = the reason's leading CamelCase word
// ("BindingSucceed" → "Binding"); reason ≤ 128 bytes, note ≤ 1024 bytes
// (cut at a UTF-8 boundary). Namespace: the event's, else "default".
std::string events_v1_event_body(const cluster::Event& event, const EventStamp& stamp);

// core v1 Event (count 1, firstTimestamp = lastTimestamp).
std::string core_v1_event_body(const cluster::Event& event, const EventStamp& stamp);

// Event namespace (the object's, "default" for cluster-scoped objects).
std::string event_namespace(const cluster::Event& event);

}  // namespace hami::kube
