#include "k8s/json_read.hpp"

#include <charconv>
#include <string>

namespace hami::k8s::json {

std::string_view type_name(const Value& value) noexcept {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "a boolean";
    case rapidjson::kObjectType:
      return "an object";
    case rapidjson::kArrayType:
      return "an array";
    case rapidjson::kStringType:
      return "a string";
    case rapidjson::kNumberType:
      return "a number";
  }
  return "an unknown value";
}

void wrong_type(const JsonPath& path, std::string_view expected, const Value& value) {
  std::string problem = "expected ";
  problem += expected;
  problem += ", got ";
  problem += type_name(value);
  throw ObjectError(path.pointer(), std::move(problem));
}

const Value* member(const Value& object, std::string_view key) noexcept {
  // RapidJSON's FindMember(const char*) needs NUL-terminated keys; a Value
  // wrapping the view compares by length instead.
  const Value name(rapidjson::StringRef(key.data(), key.size()));
  const auto it = object.FindMember(name);
  if (it == object.MemberEnd() || it->value.IsNull())
    return nullptr;
  return &it->value;
}

std::string string_or_empty(const Value& object, std::string_view key) {
  if (!object.IsObject())
    return {};
  const Value* v = member(object, key);
  return v != nullptr && v->IsString() ? std::string(view_of(*v)) : std::string();
}

const Value* optional_object(const Value& object, std::string_view key, const JsonPath& at) {
  const Value* found = member(object, key);
  if (found != nullptr && !found->IsObject())
    wrong_type(JsonPath(at, key), "an object", *found);
  return found;
}

const Value* optional_array(const Value& object, std::string_view key, const JsonPath& at) {
  const Value* found = member(object, key);
  if (found != nullptr && !found->IsArray())
    wrong_type(JsonPath(at, key), "an array", *found);
  return found;
}

std::optional<std::string_view> optional_string(const Value& object, std::string_view key,
                                                const JsonPath& at) {
  const Value* found = member(object, key);
  if (found == nullptr)
    return std::nullopt;
  if (!found->IsString())
    wrong_type(JsonPath(at, key), "a string", *found);
  return view_of(*found);
}

std::optional<bool> optional_bool(const Value& object, std::string_view key, const JsonPath& at) {
  const Value* found = member(object, key);
  if (found == nullptr)
    return std::nullopt;
  if (!found->IsBool())
    wrong_type(JsonPath(at, key), "a boolean", *found);
  return found->GetBool();
}

std::string_view quantity(const Value& value, const JsonPath& at, QuantityBuffer& buffer) {
  if (value.IsString())
    return view_of(value);
  if (!value.IsNumber())
    wrong_type(at, "a quantity (string or number)", value);
  char* const first = buffer.bytes;
  char* const last = buffer.bytes + sizeof buffer.bytes;
  std::to_chars_result result{};
  if (value.IsInt64()) {
    result = std::to_chars(first, last, value.GetInt64());
  } else if (value.IsUint64()) {
    result = std::to_chars(first, last, value.GetUint64());
  } else {
    result = std::to_chars(first, last, value.GetDouble());
  }
  return {first, static_cast<size_t>(result.ptr - first)};
}

}  // namespace hami::k8s::json
