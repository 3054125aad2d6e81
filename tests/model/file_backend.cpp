#include "file_backend.hpp"

#include <rapidjson/document.h>

#include <stdexcept>

namespace hami::model {

namespace {

std::unique_ptr<cluster::FileClusterState> make_store(const std::vector<std::string>& nodes) {
  std::string list = R"({"kind":"List","items":[)";
  for (size_t i = 0; i < nodes.size(); ++i)
    list += (i > 0 ? "," : "") + nodes[i];
  list += "]}";
  return cluster::FileClusterState::from_text(list, "model-cluster.json");
}

}  // namespace

FileBackend::FileBackend(const std::vector<std::string>& nodes_json)
    : store_(make_store(nodes_json)), faulty_(*store_) {}

StoredState FileBackend::stored() const {
  return parse_stored_list(store_->to_json(), &registrations_);
}

void FileBackend::put(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject())
    throw std::invalid_argument("model: bad object json");
  if (doc.HasMember("metadata") && doc["metadata"].IsObject())
    doc["metadata"].RemoveMember("resourceVersion");
  store_->upsert(doc, "model");
}

void FileBackend::put_pod(const std::string& json) {
  put(json);
}

void FileBackend::put_node(const std::string& json) {
  put(json);
}

void FileBackend::remove_pod(const std::string& ns, const std::string& name) {
  store_->delete_pod(ns, name);
}

}  // namespace hami::model
