// The file backend under test: a FileClusterState (the store and the
// change feed at once) behind a FaultyCluster the scheduler writes through.
#pragma once

#include <memory>

#include "backend.hpp"
#include "cluster/file_cluster.hpp"
#include "faulty_cluster.hpp"

namespace hami::model {

class FileBackend final : public Backend {
 public:
  // `nodes_json`: Node objects (JSON text) to start with.
  explicit FileBackend(const std::vector<std::string>& nodes_json);

  std::string_view name() const override { return "file"; }
  cluster::ClusterState& cluster() override { return faulty_; }
  StoredState stored() const override;
  void put_pod(const std::string& json) override;
  void put_node(const std::string& json) override;
  void remove_pod(const std::string& ns, const std::string& name) override;
  void arm(Fault fault, const std::string& ns, const std::string& pod,
           const std::string& node) override {
    faulty_.arm(fault, ns, pod, node);
  }
  bool disarm() override { return faulty_.disarm(); }

 private:
  void put(const std::string& json);

  std::unique_ptr<cluster::FileClusterState> store_;
  FaultyCluster faulty_;
  mutable RegistrationCache registrations_;
};

}  // namespace hami::model
