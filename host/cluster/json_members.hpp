// Reading and editing members of the JSON objects the cluster backends
// keep: the record builders (object_records.cpp) read them, and the `file`
// backend normalises and writes its stored objects with them. Unlike
// k8s::json::member, a null member is found (it is there to be replaced).
#pragma once

#include <rapidjson/document.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace hami::cluster {

using JsonAllocator = rapidjson::Document::AllocatorType;

// RapidJSON's default number parsing. Its full-precision mode would keep
// every double exact, but in 1.1.0 it normalises a zero significand with
// __builtin_clzll(0) (undefined) for numbers like 0e44.
constexpr unsigned kJsonParseFlags = rapidjson::kParseDefaultFlags;

// The member `key` of `object`, or nullptr when absent (or `object` is not
// an object).
const rapidjson::Value* find_member(const rapidjson::Value& object, std::string_view key);
rapidjson::Value* find_member(rapidjson::Value& object, std::string_view key);

// The string member `key`; empty when absent or not a string.
std::string string_at(const rapidjson::Value& object, std::string_view key);

// The object's "kind"; empty when absent or not a string. Views `object`.
std::string_view kind_of(const rapidjson::Value& object);

// The object member `key`, created (or replacing a null / non-object) when
// needed.
rapidjson::Value& ensure_object(rapidjson::Value& parent, std::string_view key, JsonAllocator& a);

// Sets the string member `key`, adding it when absent.
void set_string(rapidjson::Value& object, std::string_view key, std::string_view value,
                JsonAllocator& a);

void remove_member(rapidjson::Value& object, std::string_view key);

// A value the JSON writer cannot spell: RapidJSON's default number parsing
// reads some numbers just past the largest double (1.7976931348623159e308)
// as infinity instead of refusing them, and the writer then stops mid-text.
class NotRepresentable : public std::runtime_error {
 public:
  NotRepresentable() : std::runtime_error("a number is beyond the range of a double") {}
};

// `v` as compact JSON text; throws NotRepresentable.
std::string to_compact_json(const rapidjson::Value& v);

}  // namespace hami::cluster
