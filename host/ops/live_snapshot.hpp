// A file-backend snapshot of a live cluster: what `hami-scheduler snapshot`
// prints and what `--cluster kubernetes` schedules on in memory.
//
// Read-only: four paged lists (GET /api/v1/nodes, /api/v1/pods,
// /api/v1/resourcequotas, /api/v1/namespaces, `limit`/`continue`), nothing
// watched, nothing written. Every object is trimmed to the members the
// scheduler reads (kube/object_trim.hpp: the same copy the Kubernetes
// backend caches) and given back the `kind` and `apiVersion` a list's items
// lack, so cluster::FileClusterState loads the text as it is.
//
// Output: one JSON `List`, one item per line (nodes, then pods, quotas,
// namespaces, each in the server's order), so a snapshot diffs line by line
// and a bug report can quote single objects.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string>

#include "kube/api_client.hpp"

namespace hami::ops {

struct LiveSnapshotOptions {
  // Rename namespaces, pods and nodes (ops/snapshot_anonymize.hpp).
  bool anonymize = false;
  size_t page_size = 500;  // items per list request
};

// `items` (an array of objects) as that List text.
std::string write_snapshot_list(const rapidjson::Value& items);

// Throws kube::ApiError (a request failed or a reply is not a list).
std::string read_live_snapshot(kube::ApiClient& api, const LiveSnapshotOptions& options = {});

}  // namespace hami::ops
