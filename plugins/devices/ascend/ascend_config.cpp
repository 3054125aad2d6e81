#include "ascend_config.hpp"

#include <algorithm>

#include "ascend_chart.hpp"
#include "config_document.hpp"
#include "errors.hpp"

namespace hami::devices::ascend {

const char* const kConfigSchema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "title": "ascend device plugin (one element of HAMi device-config.yaml 'vnpus.configs')",
  "type": "object",
  "definitions": {
    "count": {"type": ["integer", "null"], "minimum": 0, "maximum": 2147483647}
  },
  "properties": {
    "commonWord": {"type": ["string", "null"], "default": "Ascend910A", "minLength": 1,
      "pattern": "^[^,:;/ ]+$",
      "description": "vendor word: the device type the node plugin registers; every annotation key and the default resource names are built from it"},
    "chipName": {"type": ["string", "null"],
      "description": "chip model, read by the node-side plugin only"},
    "resourceName": {"type": ["string", "null"],
      "description": "resource holding the number of NPUs (default huawei.com/<commonWord>)"},
    "resourceMemoryName": {"type": ["string", "null"],
      "description": "resource holding MiB per NPU (default huawei.com/<commonWord>-memory)"},
    "resourceCoreName": {"type": ["string", "null"],
      "description": "resource holding the percent of each NPU, soft split only (default huawei.com/<commonWord>-core; \"\" = none)"},
    "memoryAllocatable": {"$ref": "#/definitions/count",
      "description": "MiB written for a whole NPU (required for a word the chart does not know)"},
    "memoryCapacity": {"$ref": "#/definitions/count",
      "description": "largest memory request accepted, MiB"},
    "memoryFactor": {"$ref": "#/definitions/count",
      "description": "memory requests are multiplied by it (0 or 1: unscaled)"},
    "aiCore": {"$ref": "#/definitions/count", "description": "read by the node side only"},
    "aiCPU": {"$ref": "#/definitions/count", "description": "read by the node side only"},
    "runtimeClassName": {"type": ["string", "null"],
      "description": "runtime class set on pods that have none (\"\" = none)"},
    "overwriteEnv": {"type": ["boolean", "null"],
      "description": "give containers without NPUs an empty ASCEND_VISIBLE_DEVICES"},
    "superPod": {"type": ["boolean", "null"],
      "description": "Ascend910C: a container asks for 1 or an even number of NPUs (1 becomes 2)"},
    "hamiVnpuCore": {"type": ["boolean", "null"], "default": false,
      "description": "vnpus.hamiVnpuCore: soft split (hami-core) is supported on nodes without the hami-vnpu-core annotation"},
    "templates": {"type": ["array", "null"],
      "description": "hard-split templates; sorted ascending by memory",
      "items": {"type": "object", "required": ["name", "memory"],
        "properties": {
          "name": {"type": "string", "minLength": 1},
          "memory": {"type": "integer", "minimum": 0, "maximum": 2147483647},
          "aiCore": {"$ref": "#/definitions/count"},
          "aiCPU": {"$ref": "#/definitions/count"}
        }}},
    "customresources": {"type": ["array", "null"], "items": {"type": "string"},
      "description": "chart-level list of forwarded resources, accepted and ignored"}
  }
})json";

namespace {

constexpr std::string_view kDefaultWord = "Ascend910A";

std::vector<VnpuTemplate> read_templates(const ConfigDocument& doc, const ChartEntry* chart) {
  std::vector<VnpuTemplate> out;
  if (const rapidjson::Value* list = doc.get("templates"); list != nullptr && list->IsArray()) {
    for (const rapidjson::Value& t : list->GetArray()) {
      VnpuTemplate v;
      v.name.assign(t["name"].GetString(), t["name"].GetStringLength());
      v.memory_mib = t["memory"].GetInt64();
      const auto int_member = [&](const char* key) -> std::int64_t {
        const auto it = t.FindMember(key);
        return it != t.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : 0;
      };
      v.ai_core = int_member("aiCore");
      v.ai_cpu = int_member("aiCPU");
      out.push_back(std::move(v));
    }
  } else if (chart != nullptr) {
    for (const ChartTemplate& t : chart->templates)
      out.push_back({std::string(t.name), t.memory_mib, t.ai_core, t.ai_cpu});
  }
  // HAMi sorts the templates at init; stable, so equal sizes keep their order.
  std::stable_sort(out.begin(), out.end(), [](const VnpuTemplate& a, const VnpuTemplate& b) {
    return a.memory_mib < b.memory_mib;
  });
  return out;
}

}  // namespace

bool AscendConfig::network_topology() const noexcept {
  return common_word.starts_with("Ascend910");
}

bool AscendConfig::module_pairs() const noexcept {
  return common_word == "Ascend910C";
}

AscendConfig parse_config(std::string_view json) {
  const ConfigDocument doc(json, kConfigSchema);
  AscendConfig c;
  c.common_word = doc.string_or("commonWord", kDefaultWord);
  const std::string& cw = c.common_word;
  const ChartEntry* chart = chart_entry(cw);
  c.chip_name = doc.string_or("chipName", chart != nullptr ? chart->chip_name : cw);
  c.count_resource = doc.string_or("resourceName", "huawei.com/" + cw);
  c.memory_resource = doc.string_or("resourceMemoryName", "huawei.com/" + cw + "-memory");
  c.cores_resource = doc.string_or("resourceCoreName", "huawei.com/" + cw + "-core");
  if (chart != nullptr) {
    c.memory_allocatable = doc.int_or("memoryAllocatable", chart->memory_allocatable);
    c.memory_capacity = doc.int_or("memoryCapacity", chart->memory_capacity);
    c.memory_factor = static_cast<std::int32_t>(doc.int_or("memoryFactor", chart->memory_factor));
    c.super_pod = doc.bool_or("superPod", chart->super_pod);
  } else {
    if (doc.get("memoryAllocatable") == nullptr) {
      throw InvalidInput("config /memoryAllocatable is required for commonWord " + cw +
                         " (the chart has no entry for it)");
    }
    c.memory_allocatable = doc.int_or("memoryAllocatable", 0);
    c.memory_capacity = doc.int_or("memoryCapacity", c.memory_allocatable);
    c.memory_factor = static_cast<std::int32_t>(doc.int_or("memoryFactor", 1));
    c.super_pod = doc.bool_or("superPod", false);
  }
  c.runtime_class = doc.string_or("runtimeClassName", "");
  c.overwrite_env = doc.bool_or("overwriteEnv", false);
  c.hami_vnpu_core = doc.bool_or("hamiVnpuCore", false);
  c.templates = read_templates(doc, chart);
  c.register_annotation = "hami.io/node-register-" + cw;
  c.handshake_annotation = "hami.io/node-handshake-" + cw;
  c.to_allocate_annotation = "hami.io/" + cw + "-devices-to-allocate";
  c.allocated_annotation = "hami.io/" + cw + "-devices-allocated";
  c.use_uuid_annotation = "hami.io/use-" + cw + "-uuid";
  c.nouse_uuid_annotation = "hami.io/no-use-" + cw + "-uuid";
  c.runtime_info_annotation = "huawei.com/" + cw;
  return c;
}

const VnpuTemplate* template_for(const AscendConfig& config, std::int64_t memory_mib) noexcept {
  for (const VnpuTemplate& t : config.templates) {
    if (memory_mib <= t.memory_mib)
      return &t;
  }
  return nullptr;
}

}  // namespace hami::devices::ascend
