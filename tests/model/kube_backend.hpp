// The Kubernetes backend under test: a KubernetesClusterState over real
// sockets to a FakeApiServer on 127.0.0.1. The store is the server; faults
// are the server's fail_next / fail_next_after_applying rules aimed at one
// pod's or node's path, and whatever a rule did not use is consumed by
// harmless requests (an empty merge patch, a Binding with a foreign uid) so
// no fault outlives its operation.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "fake_apiserver.hpp"
#include "kube/api_client.hpp"
#include "kube/kube_cluster.hpp"

namespace hami::model {

class KubeBackend final : public Backend {
 public:
  explicit KubeBackend(const std::vector<std::string>& nodes_json);
  ~KubeBackend() override;

  std::string_view name() const override { return "kube"; }
  cluster::ClusterState& cluster() override { return *cluster_; }
  StoredState stored() const override;
  void put_pod(const std::string& json) override;
  void put_node(const std::string& json) override;
  void remove_pod(const std::string& ns, const std::string& name) override;
  void arm(Fault fault, const std::string& ns, const std::string& pod,
           const std::string& node) override;
  bool disarm() override;
  bool has_watches() const override { return true; }
  void drop_watches() override;
  void expire_history() override;
  bool catch_up(std::chrono::milliseconds timeout) override;

 private:
  struct Armed {
    std::string method;
    std::string path;
    int count = 0;
    int status = 0;
  };
  bool cache_matches() const;
  void drain(const Armed& armed, int leftover);

  testing::FakeApiServer server_;
  std::shared_ptr<kube::ApiClient> drain_client_;
  std::unique_ptr<kube::KubernetesClusterState> cluster_;
  std::optional<Armed> armed_;
  mutable RegistrationCache registrations_;
};

}  // namespace hami::model
