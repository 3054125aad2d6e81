// What a backend really stores (the file snapshot, or the fake API server's
// objects — never a cache), parsed here independently of the plugins and
// of host/: the pods and nodes the reference model is computed from.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hami::model {

struct StoredPod {
  std::string ns;
  std::string name;
  std::string uid;
  std::string node_name;  // spec.nodeName
  std::string phase;      // status.phase
  bool managed = false;   // asks for nvidia.com/gpu
  std::map<std::string, std::string> annotations;
  std::string json;  // the stored object

  std::optional<std::string> annotation(std::string_view key) const;
};

// A MIG profile a MIG-mode device registered (HAMi §3.1 migProfiles).
struct StoredMigPlacement {
  uint32_t start = 0;
  uint32_t size = 0;
  friend bool operator==(const StoredMigPlacement&, const StoredMigPlacement&) = default;
};

struct StoredMigProfile {
  std::string name;
  int64_t memory = 0;  // memoryMB
  int64_t cores = 0;   // core
  std::vector<StoredMigPlacement> placements;
};

struct StoredDevice {
  std::string id;
  int64_t memory = 0;
  int64_t cores = 0;
  int32_t slots = 0;
  std::string mode = "hami-core";  // "mode", hami-core when absent
  std::vector<StoredMigProfile> profiles;

  bool mig() const { return mode == "mig"; }
  const StoredMigProfile* profile(std::string_view name) const;
};

struct StoredNode {
  std::string name;
  std::vector<StoredDevice> devices;  // from hami.io/node-nvidia-register
  std::optional<std::string> lock;    // hami.io/mutex.lock
  nlohmann::json object;              // the stored object (kept parsed: the
                                      // registrations make its text long)
};

struct StoredState {
  std::vector<StoredPod> pods;
  std::vector<StoredNode> nodes;

  const StoredPod* pod(std::string_view ns, std::string_view name) const;
  const StoredNode* node(std::string_view name) const;
  // The device `id` of node `node_name`; nullptr when unknown.
  const StoredDevice* device(std::string_view node_name, std::string_view id) const;
};

// The devices of hami.io/node-nvidia-register values, by value: a run's
// registrations do not change, and parsing them again (the MIG profiles)
// was half of the cost of reading the stored state after each operation.
class RegistrationCache {
 public:
  std::vector<StoredDevice> devices(const std::string& registration);

 private:
  std::mutex mu_;
  std::map<std::string, std::vector<StoredDevice>> parsed_;
};

// Parses one Pod / Node object as JSON text (throws std::invalid_argument).
// `cache`, when given, keeps the parsed registrations.
StoredPod parse_stored_pod(std::string_view json);
StoredNode parse_stored_node(std::string_view json, RegistrationCache* cache = nullptr);
// Parses a `List` document (FileClusterState::to_json()).
StoredState parse_stored_list(std::string_view json, RegistrationCache* cache = nullptr);

}  // namespace hami::model
