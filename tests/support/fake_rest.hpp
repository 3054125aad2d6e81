// The non-watch verbs of the fake API server: list (limit/continue,
// selectors), get, create, update, patch, delete and pods/binding, with the
// real server's status codes and Status bodies.
//
// Semantics kept from the real server:
//  - a list's metadata.resourceVersion is the store revision it was read at;
//    its items have no kind/apiVersion; a continuation token carries that
//    revision and the last key, and pages of one list come from the same
//    snapshot; after compact() the token is 410 Expired.
//  - the list resourceVersion parameter: unset → the latest state (a
//    consistent read), paged by limit; "0" → any version: the latest state,
//    whole (limit ignored) when the server has a watch cache
//    (FakeApiServerOptions::watch_cache), else paged; a revision X with
//    limit → exactly X, read from the history (410 Expired "The
//    resourceVersion for the provided list is too old." once compacted);
//    X without limit → not older than X: the latest state. X ahead of the
//    store → 504 "Too large resource version" (the real server waits 3 s
//    for its cache first). With continue, a resourceVersion other than 0
//    is 400, as on the real server.
//  - PUT with metadata.resourceVersion is conditional (409 Conflict); a PUT
//    or patch that changes nothing writes nothing (no new revision).
//  - merge patch: metadata.resourceVersion in the patch is a precondition
//    (409); strategic merge patch is applied as a merge patch (enough for
//    maps such as annotations and labels; lists are replaced whole).
//  - JSON patch: a failed op (a `test` included) → 422 Invalid with the
//    patch library's message as the cause; a patch that rewrites
//    metadata.resourceVersion to another value → 409.
//  - create, update and patch validate metadata.labels (keys qualified
//    names, values valid label values): 422 Invalid with the field causes
//    (fake_validation.hpp), before anything is stored.
//  - create: 409 AlreadyExists; generateName gives a 5-character suffix.
//  - delete: immediate (no graceful deletion); DeleteOptions preconditions
//    (uid, resourceVersion) → 409; pods answer the deleted object, other
//    kinds a Success Status.
//  - binding: name must match the URL (400), uid/resourceVersion
//    preconditions (409), 409 when spec.nodeName is set or the pod is being
//    deleted; success sets spec.nodeName and PodScheduled=True, merges the
//    Binding's annotations, answers 201 Success.
#pragma once

#include <string>

#include "fake_json.hpp"
#include "fake_kinds.hpp"
#include "fake_query.hpp"
#include "fake_server_state.hpp"

namespace hami::testing::fake {

struct RestRequest {
  std::string method;
  Route route;
  const Query* query = nullptr;
  std::string content_type;  // without parameters
  std::string body;
};

struct Reply {
  int status = 200;
  Json body;
};

// Takes state.mu itself.
Reply handle_rest(ServerState& state, const RestRequest& request);

}  // namespace hami::testing::fake
