#include "vendors_cluster.hpp"

#include <yaml-cpp/yaml.h>

#include "config/yaml_json.hpp"
#include "plugin_entries.hpp"

namespace hami::e2e {

nlohmann::json load_vendors_cluster() {
  const YAML::Node root =
      YAML::LoadFile(std::string(HAMI_SOURCE_DIR) + "/config/vendors-cluster.yaml");
  return nlohmann::json::parse(config::yaml_to_json(root, "vendors-cluster.yaml", ""));
}

nlohmann::json snapshot_pod(const nlohmann::json& snapshot, const std::string& name) {
  for (const nlohmann::json& item : snapshot["items"]) {
    if (item["kind"] == "Pod" && item["metadata"]["name"] == name)
      return item;
  }
  return nlohmann::json();
}

void use_vendor_plugins(config::HostConfig& c) {
  const auto entry = [](const char* name, const char* library, const char* json_config) {
    return hami::testing::plugin_entry(name, library, json_config);
  };
  c.plugins.devices = {entry("hygon", "hygon.so", "{}"),
                       entry("bi-v150", "iluvatar.so", R"({"commonWord":"BI-V150"})"),
                       entry("biren", "biren.so", "{}"),
                       entry("cambricon", "cambricon.so", "{}"),
                       entry("vastai", "vastai.so", "{}"),
                       entry("ascend910b3", "ascend.so", R"({"commonWord":"Ascend910B3"})")};
}

}  // namespace hami::e2e
