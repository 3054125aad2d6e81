#include "kube/device_config_drift.hpp"

#include <rapidjson/document.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "config/yaml_json.hpp"
#include "kube/api_client.hpp"

namespace hami::kube {
namespace {

using Leaves = std::map<std::string, const rapidjson::Value*>;

// Every non-object value under `v`, keyed by its dotted path. An empty
// object is no key at all, as an absent one.
void flatten(const rapidjson::Value& v, const std::string& path, Leaves& out) {
  if (!v.IsObject()) {
    out.emplace(path, &v);
    return;
  }
  for (const auto& m : v.GetObject())
    flatten(m.value, path + "." + std::string(m.name.GetString(), m.name.GetStringLength()), out);
}

void parse_object(rapidjson::Document& doc, std::string_view json, const std::string& what) {
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject())
    throw std::runtime_error(what + " is not a JSON object");
}

}  // namespace

std::vector<std::string> device_config_differences(const std::vector<DeviceConfigSection>& ours,
                                                   std::string_view hami_yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(hami_yaml));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("not YAML: ") + e.what());
  }
  if (!root.IsMap() && !root.IsNull())
    throw std::runtime_error("not a mapping of vendor sections");
  std::vector<std::string> out;
  for (const auto& section : ours) {
    rapidjson::Document mine;
    parse_object(mine, section.json, "the config of " + section.name);
    rapidjson::Document theirs;
    const YAML::Node node = root.IsMap() ? root[section.name] : YAML::Node();
    if (node && !node.IsNull()) {
      if (!node.IsMap())
        throw std::runtime_error("section " + section.name + " is not a mapping");
      parse_object(theirs, config::yaml_to_json(node, "device-config.yaml", section.name),
                   "section " + section.name);
    } else {
      theirs.SetObject();
    }
    Leaves a, b;
    flatten(mine, section.name, a);
    flatten(theirs, section.name, b);
    for (const auto& [key, value] : a) {
      const auto other = b.find(key);
      if (other == b.end() || !(*value == *other->second))
        out.push_back(key);
    }
    for (const auto& [key, value] : b) {
      if (!a.contains(key))
        out.push_back(key);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

DeviceConfigDriftCheck::DeviceConfigDriftCheck(std::shared_ptr<ApiClient> api, std::string ns,
                                               std::string name,
                                               std::vector<DeviceConfigSection> ours,
                                               const log::Logger& logger,
                                               std::chrono::milliseconds interval)
    : api_(std::move(api)),
      namespace_(std::move(ns)),
      name_(std::move(name)),
      ours_(std::move(ours)),
      logger_(logger),
      interval_(interval) {}

DeviceConfigDriftCheck::~DeviceConfigDriftCheck() {
  stop();
}

std::optional<std::vector<std::string>> DeviceConfigDriftCheck::check() {
  const std::string configmap = namespace_ + "/" + name_;
  std::optional<std::vector<std::string>> keys;
  std::string problem;
  try {
    const auto reply = api_->get("/api/v1/namespaces/" + namespace_ + "/configmaps/" + name_);
    rapidjson::Document doc;
    doc.Parse(reply.body.data(), reply.body.size());
    const rapidjson::Value* text = nullptr;
    if (!doc.HasParseError() && doc.IsObject()) {
      const auto data = doc.FindMember("data");
      if (data != doc.MemberEnd() && data->value.IsObject()) {
        const auto it = data->value.FindMember(rapidjson::StringRef(
            kDataKey.data(), static_cast<rapidjson::SizeType>(kDataKey.size())));
        if (it != data->value.MemberEnd() && it->value.IsString())
          text = &it->value;
      }
    }
    if (!text)
      throw std::runtime_error("the ConfigMap has no data." + std::string(kDataKey));
    keys = device_config_differences(ours_,
                                     std::string_view(text->GetString(), text->GetStringLength()));
  } catch (const std::exception& e) {
    problem = e.what();
  }
  std::string joined;
  if (keys) {
    for (const auto& k : *keys)
      joined += (joined.empty() ? "" : ",") + k;
  }
  const std::string outcome = keys ? "keys:" + joined : "problem:" + problem;
  std::lock_guard lock(mu_);
  if (outcome == last_outcome_)
    return keys;
  last_outcome_ = outcome;
  if (!keys) {
    logger_.warn("device config not compared with the ConfigMap HAMi's device plugins read",
                 {{"configMap", configmap}, {"error", problem}});
  } else if (!keys->empty()) {
    logger_.warn("device config differs from the ConfigMap HAMi's device plugins read",
                 {{"configMap", configmap}, {"keys", joined}});
  } else {
    logger_.info("device config matches the ConfigMap HAMi's device plugins read",
                 {{"configMap", configmap}});
  }
  return keys;
}

void DeviceConfigDriftCheck::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable())
    return;
  stopping_ = false;
  thread_ = std::thread([this] {
    std::unique_lock held(mu_);
    while (!stopping_) {
      held.unlock();
      check();
      held.lock();
      wake_.wait_for(held, interval_, [this] { return stopping_; });
    }
  });
}

void DeviceConfigDriftCheck::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

}  // namespace hami::kube
