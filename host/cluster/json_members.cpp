#include "cluster/json_members.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <utility>

namespace hami::cluster {

using rapidjson::Value;

namespace {

Value json_string(std::string_view text, JsonAllocator& a) {
  return Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), a);
}

}  // namespace

const Value* find_member(const Value& object, std::string_view key) {
  if (!object.IsObject())
    return nullptr;
  const Value name(rapidjson::StringRef(key.data(), key.size()));
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

Value* find_member(Value& object, std::string_view key) {
  return const_cast<Value*>(find_member(std::as_const(object), key));
}

std::string string_at(const Value& object, std::string_view key) {
  const Value* v = find_member(object, key);
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength())
                                       : std::string();
}

std::string_view kind_of(const Value& object) {
  const Value* kind = find_member(object, "kind");
  return kind != nullptr && kind->IsString()
             ? std::string_view(kind->GetString(), kind->GetStringLength())
             : std::string_view();
}

Value& ensure_object(Value& parent, std::string_view key, JsonAllocator& a) {
  if (Value* existing = find_member(parent, key)) {
    if (!existing->IsObject())
      existing->SetObject();
    return *existing;
  }
  parent.AddMember(json_string(key, a), Value(rapidjson::kObjectType), a);
  return (parent.MemberEnd() - 1)->value;
}

void set_string(Value& object, std::string_view key, std::string_view value, JsonAllocator& a) {
  if (Value* existing = find_member(object, key)) {
    existing->SetString(value.data(), static_cast<rapidjson::SizeType>(value.size()), a);
    return;
  }
  object.AddMember(json_string(key, a), json_string(value, a), a);
}

void remove_member(Value& object, std::string_view key) {
  const Value name(rapidjson::StringRef(key.data(), key.size()));
  object.EraseMember(name);
}

std::string to_compact_json(const Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  if (!v.Accept(writer))
    throw NotRepresentable();
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace hami::cluster
