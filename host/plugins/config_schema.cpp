#include "plugins/config_schema.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
// GCC 12 at -O2 reports a null dereference inside RapidJSON's schema
// validator after inlining: a false positive in the library, not our code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <rapidjson/schema.h>
#pragma GCC diagnostic pop
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "plugins/plugin_errors.hpp"

namespace hami::host {
namespace {

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

std::string parse_problem(const rapidjson::Document& doc) {
  return "offset " + std::to_string(doc.GetErrorOffset()) + ": " +
         rapidjson::GetParseError_En(doc.GetParseError());
}

std::string json_type(const rapidjson::Value& v) {
  if (v.IsObject())
    return "an object";
  if (v.IsArray())
    return "an array";
  if (v.IsString())
    return "a string";
  if (v.IsNumber())
    return "a number";
  if (v.IsBool())
    return "a boolean";
  return "null";
}

[[noreturn]] void reject(std::string_view label, const std::string& what) {
  throw PluginLoadError(PluginErrorKind::ConfigRejected, std::string(label) + ": " + what);
}

}  // namespace

std::string validate_plugin_config(std::string_view label, std::string_view schema_json,
                                   std::string_view config_json) {
  const std::string config_text = blank(config_json) ? std::string("{}") : std::string(config_json);

  rapidjson::Document config;
  config.Parse(config_text.data(), config_text.size());
  if (config.HasParseError()) {
    reject(label, "config is not valid JSON (" + parse_problem(config) + ")");
  }
  if (!config.IsObject()) {
    reject(label, "config must be a JSON object, got " + json_type(config));
  }
  if (blank(schema_json)) {
    return config_text;
  }

  rapidjson::Document schema_doc;
  schema_doc.Parse(schema_json.data(), schema_json.size());
  if (schema_doc.HasParseError()) {
    reject(label, "the plugin's config schema is not valid JSON (" + parse_problem(schema_doc) +
                      "); the plugin is broken, no config can be accepted");
  }
  if (!schema_doc.IsObject()) {
    reject(label, "the plugin's config schema must be a JSON object, got " + json_type(schema_doc));
  }

  const rapidjson::SchemaDocument schema(schema_doc);
  rapidjson::SchemaValidator validator(schema);
  if (!config.Accept(validator)) {
    rapidjson::StringBuffer pointer;
    validator.GetInvalidDocumentPointer().Stringify(pointer);
    std::string where(pointer.GetString(), pointer.GetSize());
    if (where.empty()) {
      where = "/ (the document root)";
    }
    reject(label, "config rejected by schema at " + where + ": keyword '" +
                      validator.GetInvalidSchemaKeyword() + "'");
  }
  return config_text;
}

}  // namespace hami::host
