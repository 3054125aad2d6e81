#include "admission/json_patch.hpp"

#include "admission/json_text.hpp"

namespace hami::admission {

void JsonPatch::begin(std::string_view name, std::string_view path) {
  if (count_++ != 0)
    ops_.push_back(',');
  ops_ += R"({"op":")";
  ops_ += name;
  ops_ += R"(","path":)";
  append_json_string(ops_, path);
  ops_ += R"(,"value":)";
}

void JsonPatch::append_members(Members members) {
  ops_.push_back('{');
  bool first = true;
  for (const auto& [key, value] : members) {
    if (!first)
      ops_.push_back(',');
    first = false;
    append_json_string(ops_, key);
    ops_.push_back(':');
    append_json_string(ops_, value);
  }
  ops_.push_back('}');
}

void JsonPatch::add(std::string_view path, std::string_view value) {
  begin("add", path);
  append_json_string(ops_, value);
  ops_.push_back('}');
}

void JsonPatch::replace(std::string_view path, std::string_view value) {
  begin("replace", path);
  append_json_string(ops_, value);
  ops_.push_back('}');
}

void JsonPatch::add_object(std::string_view path, Members members) {
  begin("add", path);
  append_members(members);
  ops_.push_back('}');
}

void JsonPatch::replace_object(std::string_view path, Members members) {
  begin("replace", path);
  append_members(members);
  ops_.push_back('}');
}

void JsonPatch::add_empty_object(std::string_view path) {
  begin("add", path);
  ops_ += "{}}";
}

void JsonPatch::add_empty_array(std::string_view path) {
  begin("add", path);
  ops_ += "[]}";
}

std::string JsonPatch::json() const {
  std::string out;
  out.reserve(ops_.size() + 2);
  out.push_back('[');
  out += ops_;
  out.push_back(']');
  return out;
}

}  // namespace hami::admission
