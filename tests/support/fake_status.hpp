// Status objects (kind: Status) as the Kubernetes API server writes them,
// with the real messages (fixtures in /work/shared/fixtures/apiserver).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fake_json.hpp"
#include "fake_kinds.hpp"

namespace hami::testing::fake {

// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
//  "message":…,"reason":…,["details":…,]"code":…}
Json status_failure(int code, std::string_view reason, std::string_view message,
                    Json details = nullptr);
// {"kind":"Status",…,"status":"Success","code":code}; details when given.
Json status_success(int code, Json details = nullptr);

// `qualified` is "pods" or "leases.coordination.k8s.io"; details split it
// into kind and group as the server does.
Json status_not_found(std::string_view qualified, std::string_view name);
Json status_already_exists(std::string_view qualified, std::string_view name);
// 409 "Operation cannot be fulfilled on <qualified> \"<name>\": <why>".
Json status_conflict(std::string_view qualified, std::string_view name, std::string_view why);
// The `why` of an optimistic-concurrency failure.
inline constexpr std::string_view kObjectModified =
    "the object has been modified; please apply your changes to the latest version and try again";
// 409 of a binding to a pod that already has spec.nodeName.
Json status_already_assigned(std::string_view pod, std::string_view node);
// 410 of a list continuation whose snapshot is gone.
Json status_continue_expired();
// 410 "too old resource version: X (Y)" of a watch.
Json status_too_old(uint64_t requested, uint64_t oldest);
// 410 of a list at an exact resourceVersion the store no longer holds.
Json status_list_too_old();
// 504 "Timeout: Too large resource version: X, current: Y" (cause
// ResourceVersionTooLarge) of a read at a resourceVersion not reached yet.
Json status_too_large(uint64_t requested, uint64_t current);
Json status_bad_request(std::string_view message);
// 422 of a JSON patch that cannot be applied (a failed `test` included),
// as kube-apiserver v1.37 answers it: the generic message and empty
// details, whatever the patch error was (tests/realcluster shows it).
Json status_patch_invalid();
Json status_unauthorized();
// 404 for a path that names nothing.
Json status_unknown_path();
// 403 of a request authorization refused, as RBAC answers an anonymous
// client: `pods "p" is forbidden: User "system:anonymous" cannot create
// resource "pods/binding" in API group "" in the namespace "ml"`.
Json status_forbidden(std::string_view method, const Route& route, bool watch);
// The injected fault replies of FakeApiServer::fail_next.
Json status_fault(int code, std::optional<int> retry_after_seconds, std::string_view qualified,
                  std::string_view name);

// The reason the API server uses for an HTTP code ("" when none).
std::string_view reason_for_code(int code);

}  // namespace hami::testing::fake
