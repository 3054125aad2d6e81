#include "fake_json.hpp"

namespace hami::testing::fake {

std::string meta_string(const Json& object, std::string_view field) {
  if (!object.is_object()) {
    return {};
  }
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) {
    return {};
  }
  auto it = meta->find(std::string(field));
  if (it == meta->end() || !it->is_string()) {
    return {};
  }
  return it->get<std::string>();
}

std::string field_value(const Json& object, std::string_view dotted) {
  const Json* cur = &object;
  size_t pos = 0;
  while (pos <= dotted.size()) {
    size_t dot = dotted.find('.', pos);
    if (dot == std::string_view::npos) {
      dot = dotted.size();
    }
    if (!cur->is_object()) {
      return {};
    }
    auto it = cur->find(std::string(dotted.substr(pos, dot - pos)));
    if (it == cur->end()) {
      return {};
    }
    cur = &*it;
    pos = dot + 1;
  }
  if (cur->is_string()) {
    return cur->get<std::string>();
  }
  if (cur->is_boolean()) {
    return cur->get<bool>() ? "true" : "false";
  }
  if (cur->is_number()) {
    return cur->dump();
  }
  return {};
}

Json& metadata(Json& object) {
  Json& meta = object["metadata"];
  if (!meta.is_object()) {
    meta = Json::object();
  }
  return meta;
}

}  // namespace hami::testing::fake
