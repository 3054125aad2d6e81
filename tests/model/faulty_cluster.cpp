#include "faulty_cluster.hpp"

namespace hami::model {

namespace {

[[noreturn]] void fail(cluster::ErrorKind kind, const std::string& what) {
  throw cluster::ClusterError(kind, what);
}

bool stored_first(Fault f) {
  return f == Fault::pod_write_after || f == Fault::node_write_after || f == Fault::binding_after;
}

}  // namespace

void FaultyCluster::arm(Fault fault, std::string ns, std::string pod, std::string node) {
  fault_ = fault;
  ns_ = std::move(ns);
  pod_ = std::move(pod);
  node_ = std::move(node);
  shots_ = fault == Fault::none ? 0 : fault == Fault::pod_write_and_removal ? 2 : 1;
  fired_ = false;
}

bool FaultyCluster::disarm() {
  const bool fired = fired_;
  arm(Fault::none, "", "", "");
  return fired;
}

bool FaultyCluster::hit(Target target, std::string_view ns, std::string_view name) {
  if (shots_ == 0)
    return false;
  Target wanted = Target::none;
  switch (fault_) {
    case Fault::pod_write_before:
    case Fault::pod_write_after:
    case Fault::pod_write_conflict:
    case Fault::pod_write_and_removal:
      wanted = Target::pod_write;
      break;
    case Fault::node_write_before:
    case Fault::node_write_after:
      wanted = Target::node_write;
      break;
    case Fault::binding_before:
    case Fault::binding_after:
    case Fault::binding_refused:
      wanted = Target::binding;
      break;
    case Fault::none:
      break;
  }
  if (target != wanted)
    return false;
  if (target == Target::node_write ? name != node_ : (ns != ns_ || name != pod_))
    return false;
  --shots_;
  fired_ = true;
  return true;
}

void FaultyCluster::patch_pod_metadata(std::string_view ns, std::string_view n,
                                       const cluster::PodMetadataPatch& patch,
                                       std::optional<std::string_view> uid) {
  const Fault f = fault_;
  if (!hit(Target::pod_write, ns, n)) {
    inner_.patch_pod_metadata(ns, n, patch, uid);
    return;
  }
  if (f == Fault::pod_write_conflict)
    fail(cluster::ErrorKind::Conflict, "injected: pod write 409 Conflict");
  if (stored_first(f))
    inner_.patch_pod_metadata(ns, n, patch, uid);
  fail(cluster::ErrorKind::Unavailable, "injected: pod write 500");
}

void FaultyCluster::patch_node_annotations(std::string_view n,
                                           const std::vector<cluster::MetadataWrite>& a,
                                           std::optional<std::string_view> rv) {
  const Fault f = fault_;
  if (!hit(Target::node_write, "", n)) {
    inner_.patch_node_annotations(n, a, rv);
    return;
  }
  if (stored_first(f))
    inner_.patch_node_annotations(n, a, rv);
  fail(cluster::ErrorKind::Unavailable, "injected: node write 500");
}

void FaultyCluster::bind(std::string_view ns, std::string_view n, std::string_view uid,
                         std::string_view node) {
  const Fault f = fault_;
  if (!hit(Target::binding, ns, n)) {
    inner_.bind(ns, n, uid, node);
    return;
  }
  if (f == Fault::binding_refused) {
    // Refused before storage (API priority and fairness): known not stored.
    throw cluster::ClusterError(cluster::ErrorKind::Unavailable, "injected: binding 429", false);
  }
  if (stored_first(f))
    inner_.bind(ns, n, uid, node);
  fail(cluster::ErrorKind::Unavailable, "injected: binding 500");
}

}  // namespace hami::model
