#include "extender/go_json.hpp"

#include <strings.h>

namespace hami::extender {

bool go_field_is(std::string_view key, std::string_view field) {
  return key.size() == field.size() && strncasecmp(key.data(), field.data(), field.size()) == 0;
}

bool go_field_is(const rapidjson::Value& key, std::string_view field) {
  return go_field_is(std::string_view(key.GetString(), key.GetStringLength()), field);
}

std::string_view go_type(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "bool";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "value";
}

void throw_type_error(const rapidjson::Value& v, std::string_view field, std::string_view type) {
  throw DecodeError("json: cannot unmarshal " + std::string(go_type(v)) + " into Go struct field " +
                    std::string(field) + " of type " + std::string(type));
}

void throw_value_type_error(const rapidjson::Value& v, std::string_view type) {
  throw DecodeError("json: cannot unmarshal " + std::string(go_type(v)) +
                    " into Go value of type " + std::string(type));
}

std::string go_string_field(const rapidjson::Value& v, std::string_view field) {
  if (v.IsNull())
    return {};
  if (!v.IsString())
    throw_type_error(v, field, "string");
  return {v.GetString(), v.GetStringLength()};
}

}  // namespace hami::extender
