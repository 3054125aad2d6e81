// AdmissionClusterView: the part of the cluster state the admission webhook
// reads — namespace ResourceQuotas with HAMi's usage figures, and namespace
// labels. Implemented by the cluster state (host/cluster); tests use an
// in-memory one. Implementations must be safe to call from many threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace hami::admission {

// One namespace's device quotas, keyed by resource name without the
// "limits." prefix (e.g. "nvidia.com/gpumem", "nvidia.com/gpucores").
//
// hard — the limits the namespace's ResourceQuotas set explicitly:
//   every `spec.hard` entry whose key is "limits.<resource>" and whose value
//   is a whole number (Kubernetes quantity syntax, e.g. "4000", "8k"; a
//   quantity that is not a whole number is ignored, as HAMi does).
//   `requests.*` and count resources are not included (Kubernetes enforces
//   those itself). Memory limits are in MiB as written by the user (the
//   check multiplies them by the vendor's memory factor), cores in percent.
//   When several ResourceQuotas of the namespace set the same key, the
//   smallest limit is kept: Kubernetes requires every quota to hold. (HAMi
//   keeps whichever it saw last; ours is the deliberate fix.) A limit of 0
//   is a real limit that blocks every request of that resource.
//
// used — the namespace's current usage of the same resource names, exactly
//   as HAMi's quota cache counts it (HAMi reference §7.3):
//   the sum, over every pod of the namespace that the scheduler's usage
//   ledger holds — pods carrying decodable `*-devices-allocated` (or
//   `*-devices-to-allocate`) annotations of that vendor, not in phase
//   Succeeded or Failed (terminating pods still count) — plus this
//   process's in-flight reservations not yet visible as annotations, of the
//   pod's collapsed per-device usage for that vendor:
//     per device UUID, memory = max(max over init containers of their memory
//     on that device, sum over app containers of their memory on it); cores
//     likewise. Once every init container of the pod has terminated with
//     exit code 0 the pod counts its app containers only (sum), and never
//     grows back to the init peak.
//   Memory is in MiB as written in the allocation annotation, i.e. after the
//   vendor's memory factor. A 2-GPU × 1000 MiB container uses 2000. Usage
//   never goes below 0. Resources with no usage may be absent (= 0).
struct NamespaceQuota {
  std::map<std::string, int64_t, std::less<>> hard;
  std::map<std::string, int64_t, std::less<>> used;
};

class AdmissionClusterView {
 public:
  virtual ~AdmissionClusterView() = default;

  // The namespace's device quotas; nullopt when none of its ResourceQuotas
  // sets a "limits.*" entry (every pod fits).
  virtual std::optional<NamespaceQuota> quota(std::string_view ns) const = 0;

  // metadata.labels[key] of namespace `ns`; nullopt when the namespace or
  // the label does not exist.
  virtual std::optional<std::string> namespace_label(std::string_view ns,
                                                     std::string_view key) const = 0;
};

}  // namespace hami::admission
