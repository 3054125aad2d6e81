// Go's encoding/json as kube-scheduler's extender client speaks it: the
// decode error, its type words, and case-insensitive field names.
#pragma once

#include <rapidjson/document.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace hami::extender {

// A body that is not the expected type. The message reads like Go's
// encoding/json error, e.g.
//   json: cannot unmarshal string into Go struct field ExtenderArgs.NodeNames of type []string
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Go matches a JSON key to a struct field case-insensitively.
bool go_field_is(std::string_view key, std::string_view field);
bool go_field_is(const rapidjson::Value& key, std::string_view field);

// Go's word for the JSON type of `v`: null, bool, object, array, string, number.
std::string_view go_type(const rapidjson::Value& v);

// "json: cannot unmarshal <go_type(v)> into Go struct field <field> of type <type>"
[[noreturn]] void throw_type_error(const rapidjson::Value& v, std::string_view field,
                                   std::string_view type);
// "json: cannot unmarshal <go_type(v)> into Go value of type <type>"
[[noreturn]] void throw_value_type_error(const rapidjson::Value& v, std::string_view type);

// A string field: null reads as empty, another type throws.
std::string go_string_field(const rapidjson::Value& v, std::string_view field);

}  // namespace hami::extender
