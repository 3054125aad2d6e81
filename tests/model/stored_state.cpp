#include "stored_state.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hami::model {

namespace {

using json = nlohmann::json;

std::string text_at(const json& object, std::initializer_list<const char*> path) {
  const json* at = &object;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key))
      return "";
    at = &(*at)[key];
  }
  return at->is_string() ? at->get<std::string>() : "";
}

StoredPod pod_of(const json& object, std::string text) {
  StoredPod pod;
  pod.ns = text_at(object, {"metadata", "namespace"});
  pod.name = text_at(object, {"metadata", "name"});
  pod.uid = text_at(object, {"metadata", "uid"});
  pod.node_name = text_at(object, {"spec", "nodeName"});
  pod.phase = text_at(object, {"status", "phase"});
  if (const auto a = object.find("metadata"); a != object.end() && a->contains("annotations")) {
    for (const auto& [k, v] : (*a)["annotations"].items()) {
      if (v.is_string())
        pod.annotations[k] = v.get<std::string>();
    }
  }
  const auto spec = object.find("spec");
  if (spec != object.end() && spec->contains("containers")) {
    for (const auto& c : (*spec)["containers"]) {
      const auto limits = c.value("/resources/limits"_json_pointer, json::object());
      pod.managed = pod.managed || limits.contains("nvidia.com/gpu");
    }
  }
  pod.json = std::move(text);
  return pod;
}

std::vector<StoredDevice> parse_devices(const std::string& reg) {
  std::vector<StoredDevice> out;
  for (const auto& d : json::parse(reg)) {
    StoredDevice device;
    device.id = d.value("id", "");
    device.memory = d.value("devmem", int64_t{0});
    device.cores = d.value("devcore", int64_t{0});
    device.slots = d.value("count", int32_t{0});
    device.mode = d.value("mode", std::string("hami-core"));
    for (const auto& p : d.value("migProfiles", json::array())) {
      StoredMigProfile profile{
          p.value("name", ""), p.value("memoryMB", int64_t{0}), p.value("core", int64_t{0}), {}};
      for (const auto& at : p.value("placements", json::array()))
        profile.placements.push_back({at.value("start", 0u), at.value("size", 0u)});
      device.profiles.push_back(std::move(profile));
    }
    out.push_back(std::move(device));
  }
  return out;
}

StoredNode node_of(json object, RegistrationCache* cache) {
  StoredNode node;
  node.name = text_at(object, {"metadata", "name"});
  const std::string reg =
      text_at(object, {"metadata", "annotations", "hami.io/node-nvidia-register"});
  if (!reg.empty())
    node.devices = cache ? cache->devices(reg) : parse_devices(reg);
  const auto meta = object.find("metadata");
  if (meta != object.end() && meta->contains("annotations") &&
      (*meta)["annotations"].contains("hami.io/mutex.lock")) {
    node.lock = (*meta)["annotations"]["hami.io/mutex.lock"].get<std::string>();
  }
  node.object = std::move(object);
  return node;
}

json parse(std::string_view text) {
  auto doc = json::parse(text, nullptr, false);
  if (doc.is_discarded())
    throw std::invalid_argument("stored object is not JSON");
  return doc;
}

}  // namespace

std::optional<std::string> StoredPod::annotation(std::string_view key) const {
  const auto it = annotations.find(std::string(key));
  if (it == annotations.end())
    return std::nullopt;
  return it->second;
}

const StoredPod* StoredState::pod(std::string_view ns, std::string_view name) const {
  for (const auto& p : pods) {
    if (p.ns == ns && p.name == name)
      return &p;
  }
  return nullptr;
}

const StoredNode* StoredState::node(std::string_view name) const {
  for (const auto& n : nodes) {
    if (n.name == name)
      return &n;
  }
  return nullptr;
}

const StoredMigProfile* StoredDevice::profile(std::string_view name) const {
  for (const auto& p : profiles) {
    if (p.name == name)
      return &p;
  }
  return nullptr;
}

const StoredDevice* StoredState::device(std::string_view node_name, std::string_view id) const {
  const StoredNode* n = node(node_name);
  if (n == nullptr)
    return nullptr;
  for (const auto& d : n->devices) {
    if (d.id == id)
      return &d;
  }
  return nullptr;
}

StoredPod parse_stored_pod(std::string_view text) {
  return pod_of(parse(text), std::string(text));
}

StoredNode parse_stored_node(std::string_view text, RegistrationCache* cache) {
  return node_of(parse(text), cache);
}

std::vector<StoredDevice> RegistrationCache::devices(const std::string& registration) {
  std::lock_guard lock(mu_);
  auto it = parsed_.find(registration);
  if (it == parsed_.end())
    it = parsed_.emplace(registration, parse_devices(registration)).first;
  return it->second;
}

StoredState parse_stored_list(std::string_view text, RegistrationCache* cache) {
  json doc = parse(text);
  StoredState state;
  if (!doc.contains("items") || !doc["items"].is_array())
    return state;
  for (auto& item : doc["items"]) {
    const std::string kind = item.value("kind", "");
    if (kind == "Pod")
      state.pods.push_back(pod_of(item, item.dump()));
    else if (kind == "Node")
      state.nodes.push_back(node_of(std::move(item), cache));
  }
  return state;
}

}  // namespace hami::model
