#include "namespace_label_policy.hpp"

#include <rapidjson/document.h>

namespace hami::nslabel {

const char kNamespaceLabelSchema[] = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "title": "namespace-label admission plugin",
  "type": "object",
  "additionalProperties": false,
  "required": ["label"],
  "properties": {
    "label": {"type": "string", "minLength": 1,
              "description": "namespace label that opts a namespace in"},
    "value": {"type": "string",
              "description": "label value that opts in (default \"enabled\")"},
    "schedulerName": {"type": "string", "minLength": 1,
                      "description": "scheduler name to set; default: the host's"}
  }
})json";

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw Error(HAMI_INVALID_ARGUMENT, "namespace-label config: " + message);
}

std::string read_string(const rapidjson::Value& value, std::string_view key, bool non_empty) {
  if (!value.IsString() || (non_empty && value.GetStringLength() == 0)) {
    invalid(std::string(key) + (non_empty ? " must be a non-empty string" : " must be a string"));
  }
  return {value.GetString(), value.GetStringLength()};
}

void decide(hami_admission_output& out, uint32_t verdict, int32_t code, std::string_view message) {
  out.verdict = verdict;
  out.code = code;
  set_message(out, message);
}

}  // namespace

NamespaceLabelConfig parse_namespace_label_config(std::string_view json) {
  NamespaceLabelConfig config;
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (json.empty() || doc.HasParseError() || !doc.IsObject())
    invalid("must be a JSON object");
  for (const auto& member : doc.GetObject()) {
    const std::string_view key(member.name.GetString(), member.name.GetStringLength());
    if (key == "label") {
      config.label = read_string(member.value, key, true);
    } else if (key == "value") {
      config.value = read_string(member.value, key, false);
    } else if (key == "schedulerName") {
      config.scheduler_name = read_string(member.value, key, true);
    } else {
      invalid("unknown key " + std::string(key));
    }
  }
  if (config.label.empty())
    invalid("label is required");
  return config;
}

NamespaceLabelPolicy::NamespaceLabelPolicy(const hami_host_info& /*host*/,
                                           std::string_view config_json)
    : config_(parse_namespace_label_config(config_json)) {}

void NamespaceLabelPolicy::review(const hami_admission_input& in, hami_admission_output& out) {
  const hami_pod_view& pod = *in.pod;
  const std::string ns(to_sv(pod.namespace_));
  std::string value;
  const hami_status status = namespace_label(in, config_.label, value);
  if (status == HAMI_UNAVAILABLE || status == HAMI_UNIMPLEMENTED) {
    return decide(out, HAMI_ADMIT_SKIP, 0,
                  "namespace labels are not known; pod admitted unchanged");
  }
  if (status != HAMI_OK && status != HAMI_NOT_FOUND) {
    throw Error(status, "namespace_label failed for namespace " + ns);
  }
  if (status == HAMI_NOT_FOUND || value != config_.value) {
    return decide(out, HAMI_ADMIT_SKIP, 0,
                  "namespace " + ns + " is not labelled " + config_.label + "=" + config_.value);
  }

  bool uses_managed = false;
  const HostReply defaults = apply_device_defaults(in, uses_managed);
  if (defaults.status == HAMI_INVALID_ARGUMENT) {
    return decide(out, HAMI_ADMIT_DENY, 400, defaults.message);
  }
  if (!defaults.ok())
    throw Error(defaults.status, defaults.message);
  if (uses_managed) {
    if (pod.node_name.len != 0)
      return decide(out, HAMI_ADMIT_DENY, 403, "pod has node assigned");
    set_scheduler_name(
        out, config_.scheduler_name.empty() ? to_sv(in.scheduler_name) : config_.scheduler_name);
  }
  out.verdict = HAMI_ADMIT_ALLOW;
}

}  // namespace hami::nslabel
