// Typed reads from RapidJSON values for the object models. Kubernetes (Go)
// decoding treats a JSON null like an absent member, so every "optional_*"
// reader returns "absent" for both; any other wrong type throws ObjectError
// naming the member's pointer and the type found.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>

#include "k8s/json_path.hpp"
#include "k8s/object_error.hpp"

namespace hami::k8s::json {

using Value = rapidjson::Value;

// "a string", "a number", "an object", "an array", "a boolean", "null".
std::string_view type_name(const Value& value) noexcept;

// Throws ObjectError(path, "expected <expected>, got <type of value>").
[[noreturn]] void wrong_type(const JsonPath& path, std::string_view expected, const Value& value);

// The member `key` of `object`, or nullptr when absent or null.
const Value* member(const Value& object, std::string_view key) noexcept;

// Member `key` of `object` when it is a string; empty when it is absent,
// null or of another type, or `object` is no object: for reads where a
// missing value and an empty one mean the same.
std::string string_or_empty(const Value& object, std::string_view key);

inline std::string_view view_of(const Value& string) noexcept {
  return {string.GetString(), string.GetStringLength()};
}

// Each reads member `key` of `object` (whose own path is `at`).
const Value* optional_object(const Value& object, std::string_view key, const JsonPath& at);
const Value* optional_array(const Value& object, std::string_view key, const JsonPath& at);
std::optional<std::string_view> optional_string(const Value& object, std::string_view key,
                                                const JsonPath& at);
std::optional<bool> optional_bool(const Value& object, std::string_view key, const JsonPath& at);

// A Kubernetes quantity: the API server writes strings ("1", "4Gi"), while
// Go's Quantity decoder also accepts bare JSON numbers. Numbers are rendered
// in their shortest round-trip form into `buffer`.
struct QuantityBuffer {
  char bytes[40];
};
std::string_view quantity(const Value& value, const JsonPath& at, QuantityBuffer& buffer);

}  // namespace hami::k8s::json
