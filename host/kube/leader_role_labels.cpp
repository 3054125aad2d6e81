#include "kube/leader_role_labels.hpp"

#include <rapidjson/document.h>

#include <stdexcept>

#include "kube/write_bodies.hpp"
#include "log/logger.hpp"

namespace hami::kube {

namespace {

std::string pods_path(const std::string& namespace_) {
  return "/api/v1/namespaces/" + namespace_ + "/pods";
}

// metadata.name and the current value of `key` of one listed pod; false
// when the item has no name.
bool read_pod(const rapidjson::Value& item, const std::string& key, std::string& name,
              std::string& value, bool& has_value) {
  if (!item.IsObject())
    return false;
  const auto meta = item.FindMember("metadata");
  if (meta == item.MemberEnd() || !meta->value.IsObject())
    return false;
  const auto n = meta->value.FindMember("name");
  if (n == meta->value.MemberEnd() || !n->value.IsString())
    return false;
  name.assign(n->value.GetString(), n->value.GetStringLength());
  has_value = false;
  const auto labels = meta->value.FindMember("labels");
  if (labels != meta->value.MemberEnd() && labels->value.IsObject()) {
    const auto v = labels->value.FindMember(rapidjson::StringRef(key.data(), key.size()));
    if (v != labels->value.MemberEnd() && v->value.IsString()) {
      value.assign(v->value.GetString(), v->value.GetStringLength());
      has_value = true;
    }
  }
  return true;
}

}  // namespace

std::string role_label_patch_body(const std::string& key, const std::string& value) {
  cluster::PodMetadataPatch patch;
  patch.labels.push_back({key, value});
  return pod_metadata_patch_body(patch);
}

RoleLabeler::RoleLabeler(std::shared_ptr<ApiClient> client, RoleLabelOptions options)
    : client_(std::move(client)), options_(std::move(options)) {
  if (!client_)
    throw std::invalid_argument("role labels: no API client");
  if (options_.namespace_.empty())
    throw std::invalid_argument("role labels: the pods' namespace is empty (POD_NAMESPACE)");
  if (options_.own_pod.empty())
    throw std::invalid_argument("role labels: the own pod name is empty (POD_NAME)");
  if (options_.key.empty())
    throw std::invalid_argument("role labels: the label key is empty");
}

RoleLabelPass RoleLabeler::refresh() {
  RoleLabelPass pass;
  const auto fail = [&](std::string error, const std::string& pod) {
    if (options_.logger) {
      options_.logger->warn("scheduler role label not written", {{"namespace", options_.namespace_},
                                                                 {"pod", pod},
                                                                 {"label", options_.key},
                                                                 {"error", error}});
    }
    pass.errors.push_back(std::move(error));
  };
  std::string list_query = pods_path(options_.namespace_);
  if (!options_.selector.empty())
    list_query += "?labelSelector=" + query_escape(options_.selector);
  rapidjson::Document doc;
  try {
    const ApiResponse reply = client_->get(list_query);
    doc.Parse(reply.body.data(), reply.body.size());
  } catch (const std::exception& e) {
    fail("list pods " + options_.namespace_ + " (" + options_.selector + "): " + e.what(), "");
    return pass;
  }
  const auto items = doc.IsObject() ? doc.FindMember("items") : rapidjson::Value::MemberIterator();
  if (!doc.IsObject() || items == doc.MemberEnd() || !items->value.IsArray()) {
    fail("list pods " + options_.namespace_ + " (" + options_.selector +
             "): the reply is not a PodList",
         "");
    return pass;
  }
  for (const auto& item : items->value.GetArray()) {
    std::string name;
    std::string value;
    bool has_value = false;
    if (!read_pod(item, options_.key, name, value, has_value))
      continue;
    ++pass.pods;
    const std::string want = name == options_.own_pod ? kRoleLeader : kRoleFollower;
    if (has_value && value == want)
      continue;
    try {
      client_->patch(pods_path(options_.namespace_) + "/" + name, PatchType::merge,
                     role_label_patch_body(options_.key, want));
      ++pass.patched;
      if (options_.logger) {
        options_.logger->info("scheduler role label written", {{"namespace", options_.namespace_},
                                                               {"pod", name},
                                                               {"label", options_.key},
                                                               {"value", want}});
      }
    } catch (const std::exception& e) {
      fail("patch pod " + options_.namespace_ + "/" + name + " label " + options_.key + "=" + want +
               ": " + e.what(),
           name);
    }
  }
  return pass;
}

}  // namespace hami::kube
