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

}  // namespace

std::optional<std::vector<RolePod>> parse_role_pods(std::string_view body, const std::string& key) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject())
    return std::nullopt;
  const auto items = doc.FindMember("items");
  if (items == doc.MemberEnd() || !items->value.IsArray())
    return std::nullopt;
  std::vector<RolePod> pods;
  for (const auto& item : items->value.GetArray()) {
    if (!item.IsObject())
      continue;
    const auto meta = item.FindMember("metadata");
    if (meta == item.MemberEnd() || !meta->value.IsObject())
      continue;
    const auto name = meta->value.FindMember("name");
    if (name == meta->value.MemberEnd() || !name->value.IsString())
      continue;
    RolePod pod;
    pod.name.assign(name->value.GetString(), name->value.GetStringLength());
    const auto labels = meta->value.FindMember("labels");
    if (labels != meta->value.MemberEnd() && labels->value.IsObject()) {
      const auto value =
          labels->value.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
      if (value != labels->value.MemberEnd() && value->value.IsString())
        pod.role.emplace(value->value.GetString(), value->value.GetStringLength());
    }
    pods.push_back(std::move(pod));
  }
  return pods;
}

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

RoleLabelPass RoleLabeler::refresh(const std::function<bool()>& may_write) {
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
  std::optional<std::vector<RolePod>> pods;
  try {
    const ApiResponse reply = client_->get(list_query);
    pods = parse_role_pods(reply.body, options_.key);
  } catch (const std::exception& e) {
    fail("list pods " + options_.namespace_ + " (" + options_.selector + "): " + e.what(), "");
    return pass;
  }
  if (!pods) {
    fail("list pods " + options_.namespace_ + " (" + options_.selector +
             "): the reply is not a PodList",
         "");
    return pass;
  }
  for (const RolePod& pod : *pods) {
    ++pass.pods;
    const std::string want = pod.name == options_.own_pod ? kRoleLeader : kRoleFollower;
    if (pod.role == want)
      continue;
    if (may_write && !may_write()) {
      pass.stopped = true;
      return pass;
    }
    try {
      client_->patch(pods_path(options_.namespace_) + "/" + pod.name, PatchType::merge,
                     role_label_patch_body(options_.key, want));
      ++pass.patched;
      if (options_.logger) {
        options_.logger->info("scheduler role label written", {{"namespace", options_.namespace_},
                                                               {"pod", pod.name},
                                                               {"label", options_.key},
                                                               {"value", want}});
      }
    } catch (const std::exception& e) {
      fail("patch pod " + options_.namespace_ + "/" + pod.name + " label " + options_.key + "=" +
               want + ": " + e.what(),
           pod.name);
    }
  }
  return pass;
}

}  // namespace hami::kube
