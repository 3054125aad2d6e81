// A plugin's config document, validated against the plugin's own JSON Schema
// (draft 4, RapidJSON) before any value is read. The host validates too;
// validating again in `create` keeps the plugin safe when a host skips it and
// gives the same precise message either way.
#ifndef HAMI_DEVICES_COMMON_CONFIG_DOCUMENT_HPP
#define HAMI_DEVICES_COMMON_CONFIG_DOCUMENT_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hami::devices {

class ConfigDocument {
 public:
  // Throws InvalidInput: "config is not valid JSON: ..." or
  // "config <pointer> violates schema rule '<keyword>' at <schema pointer>".
  ConfigDocument(std::string_view json, std::string_view schema);

  // The member when present and not null.
  const rapidjson::Value* get(const char* key) const;

  std::string string_or(const char* key, std::string_view fallback) const;
  bool bool_or(const char* key, bool fallback) const;
  // Integer members; the schema has already bounded them.
  std::int64_t int_or(const char* key, std::int64_t fallback) const;

 private:
  rapidjson::Document doc_;
};

// HAMi's three share resource names (resourceCountName, resourceMemoryName,
// resourceCoreName) into `config`'s count_resource, memory_resource and
// cores_resource; a name left out or null keeps the member's default.
template <class Config>
void read_share_resources(const ConfigDocument& doc, Config& config) {
  config.count_resource = doc.string_or("resourceCountName", config.count_resource);
  config.memory_resource = doc.string_or("resourceMemoryName", config.memory_resource);
  config.cores_resource = doc.string_or("resourceCoreName", config.cores_resource);
}

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_CONFIG_DOCUMENT_HPP
