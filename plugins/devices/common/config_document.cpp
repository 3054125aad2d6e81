#include "config_document.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>

// GCC 12 at -O2/-O3 reports a null dereference inside RapidJSON's schema
// validator teardown after inlining (a false positive in the library).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <rapidjson/schema.h>
#pragma GCC diagnostic pop

#include "errors.hpp"

namespace hami::devices {

ConfigDocument::ConfigDocument(std::string_view json, std::string_view schema) {
  rapidjson::Document schema_doc;
  schema_doc.Parse(schema.data(), schema.size());
  if (schema_doc.HasParseError()) {
    // A bug in the plugin, not in the operator's config.
    throw std::logic_error("plugin config schema is not valid JSON");
  }
  const rapidjson::SchemaDocument compiled(schema_doc);

  doc_.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc_.HasParseError()) {
    throw InvalidInput(std::string("config is not valid JSON at offset ") +
                       std::to_string(doc_.GetErrorOffset()) + ": " +
                       rapidjson::GetParseError_En(doc_.GetParseError()));
  }
  rapidjson::SchemaValidator validator(compiled);
  if (!doc_.Accept(validator)) {
    rapidjson::StringBuffer doc_ptr;
    rapidjson::StringBuffer schema_ptr;
    validator.GetInvalidDocumentPointer().StringifyUriFragment(doc_ptr);
    validator.GetInvalidSchemaPointer().StringifyUriFragment(schema_ptr);
    std::string where = doc_ptr.GetString();
    if (!where.empty() && where[0] == '#')
      where.erase(0, 1);
    if (where.empty())
      where = "/";
    throw InvalidInput("config " + where + " violates schema rule '" +
                       validator.GetInvalidSchemaKeyword() + "' at " + schema_ptr.GetString());
  }
}

const rapidjson::Value* ConfigDocument::get(const char* key) const {
  if (!doc_.IsObject())
    return nullptr;
  const auto it = doc_.FindMember(key);
  if (it == doc_.MemberEnd() || it->value.IsNull())
    return nullptr;
  return &it->value;
}

std::string ConfigDocument::string_or(const char* key, std::string_view fallback) const {
  const rapidjson::Value* v = get(key);
  if (v == nullptr || !v->IsString())
    return std::string(fallback);
  return std::string(v->GetString(), v->GetStringLength());
}

bool ConfigDocument::bool_or(const char* key, bool fallback) const {
  const rapidjson::Value* v = get(key);
  return v != nullptr && v->IsBool() ? v->GetBool() : fallback;
}

std::int64_t ConfigDocument::int_or(const char* key, std::int64_t fallback) const {
  const rapidjson::Value* v = get(key);
  return v != nullptr && v->IsInt64() ? v->GetInt64() : fallback;
}

}  // namespace hami::devices
