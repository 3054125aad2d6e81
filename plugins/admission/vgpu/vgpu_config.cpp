#include "vgpu_config.hpp"

#include <rapidjson/document.h>

#include <hami/plugin.hpp>

namespace hami::vgpu {

const char kVgpuConfigSchema[] = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "title": "vgpu admission plugin",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "schedulerName": {
      "type": "string", "minLength": 1,
      "description": "spec.schedulerName given to pods that use a managed vGPU; default: the host's scheduler name"
    },
    "privileged": {
      "enum": ["skip", "deny"],
      "description": "skip: admit pods with a privileged container unchanged (default); deny: deny them when they use a managed vGPU (HAMi)"
    },
    "forceOverwriteDefaultScheduler": {
      "type": "boolean",
      "description": "take over pods that name default-scheduler (default true)"
    },
    "quota": {
      "type": "boolean",
      "description": "check namespace ResourceQuotas on device memory and cores (default true)"
    }
  }
})json";

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw Error(HAMI_INVALID_ARGUMENT, "vgpu config: " + message);
}

bool read_bool(const rapidjson::Value& value, const char* key) {
  if (!value.IsBool())
    invalid(std::string(key) + " must be a boolean");
  return value.GetBool();
}

}  // namespace

VgpuConfig parse_vgpu_config(std::string_view json) {
  VgpuConfig config;
  if (json.empty())
    return config;
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject())
    invalid("must be a JSON object");
  for (const auto& member : doc.GetObject()) {
    const std::string_view key(member.name.GetString(), member.name.GetStringLength());
    const rapidjson::Value& value = member.value;
    if (key == "schedulerName") {
      if (!value.IsString() || value.GetStringLength() == 0) {
        invalid("schedulerName must be a non-empty string");
      }
      config.scheduler_name.assign(value.GetString(), value.GetStringLength());
    } else if (key == "privileged") {
      const std::string_view mode =
          value.IsString() ? std::string_view(value.GetString(), value.GetStringLength()) : "";
      if (mode == "skip") {
        config.privileged = PrivilegedMode::Skip;
      } else if (mode == "deny") {
        config.privileged = PrivilegedMode::Deny;
      } else {
        invalid("privileged must be \"skip\" or \"deny\"");
      }
    } else if (key == "forceOverwriteDefaultScheduler") {
      config.force_overwrite_default_scheduler = read_bool(value, "forceOverwriteDefaultScheduler");
    } else if (key == "quota") {
      config.quota = read_bool(value, "quota");
    } else {
      invalid("unknown key " + std::string(key));
    }
  }
  return config;
}

}  // namespace hami::vgpu
