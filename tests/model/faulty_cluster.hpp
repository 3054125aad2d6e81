// A ClusterState that forwards to another and fails the writes of one armed
// Fault (backend.hpp) the way an API server would: refused before the
// write, or stored and then reported failed. Reads, watches and events
// always pass. Single-threaded use (the model run drives it).
#pragma once

#include <string>

#include "backend.hpp"
#include "cluster/cluster_state.hpp"

namespace hami::model {

class FaultyCluster final : public cluster::ClusterState {
 public:
  explicit FaultyCluster(cluster::ClusterState& inner) : inner_(inner) {}

  void arm(Fault fault, std::string ns, std::string pod, std::string node);
  // Disarms; whether the armed fault fired at least once.
  bool disarm();

  std::shared_ptr<const k8s::NodeModel> node(std::string_view n) const override {
    return inner_.node(n);
  }
  std::vector<std::shared_ptr<const k8s::NodeModel>> nodes() const override {
    return inner_.nodes();
  }
  std::shared_ptr<const cluster::PodRecord> pod(std::string_view ns,
                                                std::string_view n) const override {
    return inner_.pod(ns, n);
  }
  std::vector<std::shared_ptr<const cluster::PodRecord>> pods() const override {
    return inner_.pods();
  }
  std::vector<cluster::ResourceQuotaRecord> quotas() const override { return inner_.quotas(); }
  std::vector<cluster::NamespaceRecord> namespaces() const override { return inner_.namespaces(); }
  void watch(cluster::ClusterWatcher& w) override { inner_.watch(w); }
  void unwatch(cluster::ClusterWatcher& w) override { inner_.unwatch(w); }
  void patch_pod_metadata(std::string_view ns, std::string_view n,
                          const cluster::PodMetadataPatch& patch,
                          std::optional<std::string_view> uid) override;
  void patch_node_annotations(std::string_view n, const std::vector<cluster::MetadataWrite>& a,
                              std::optional<std::string_view> rv) override;
  void bind(std::string_view ns, std::string_view n, std::string_view uid,
            std::string_view node) override;
  void record_event(const cluster::Event& e) override { inner_.record_event(e); }

 private:
  enum class Target { none, pod_write, node_write, binding };
  // Whether this call is hit, and consumes one shot if so.
  bool hit(Target target, std::string_view ns, std::string_view name);

  cluster::ClusterState& inner_;
  Fault fault_ = Fault::none;
  std::string ns_;
  std::string pod_;
  std::string node_;
  int shots_ = 0;
  bool fired_ = false;
};

}  // namespace hami::model
