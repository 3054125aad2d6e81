#include "observability/mig_allocations.hpp"

#include <rapidjson/document.h>
#include <strings.h>

namespace hami::observability {
namespace {

const rapidjson::Value* member(const rapidjson::Value& object, const char* key) {
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    if (it->name.IsString() && strcasecmp(it->name.GetString(), key) == 0)
      return &it->value;
  }
  return nullptr;
}

// False when the member is present with the wrong type.
bool read_int(const rapidjson::Value& object, const char* key, std::optional<int64_t>& out) {
  const rapidjson::Value* v = member(object, key);
  if (v == nullptr || v->IsNull())
    return true;
  if (!v->IsInt64())
    return false;
  out = v->GetInt64();
  return true;
}

bool read_string(const rapidjson::Value& object, const char* key, std::optional<std::string>& out) {
  const rapidjson::Value* v = member(object, key);
  if (v == nullptr || v->IsNull())
    return true;
  if (!v->IsString())
    return false;
  out = std::string(v->GetString(), v->GetStringLength());
  return true;
}

}  // namespace

std::optional<std::vector<MigAllocation>> parse_mig_allocations(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsArray())
    return std::nullopt;
  std::vector<MigAllocation> out;
  for (const rapidjson::Value& entry : doc.GetArray()) {
    if (!entry.IsObject())
      return std::nullopt;
    std::optional<int64_t> container, device, start, size;
    std::optional<std::string> gpu, profile;
    MigAllocation a;
    bool ok = read_int(entry, "containerIndex", container) &&
              read_int(entry, "deviceIndex", device) && read_string(entry, "gpuUUID", gpu) &&
              read_string(entry, "profile", profile) && read_string(entry, "migUUID", a.mig_uuid) &&
              read_int(entry, "gpuInstanceID", a.gpu_instance_id) &&
              read_int(entry, "computeInstanceID", a.compute_instance_id);
    if (const rapidjson::Value* placement = member(entry, "placement");
        ok && placement != nullptr && !placement->IsNull()) {
      ok = placement->IsObject() && read_int(*placement, "start", start) &&
           read_int(*placement, "size", size);
    }
    if (!ok)
      return std::nullopt;
    a.container_index = container.value_or(0);
    a.device_index = device.value_or(0);
    a.gpu_uuid = gpu.value_or("");
    a.profile = profile.value_or("");
    a.placement_start = start.value_or(0);
    a.placement_size = size.value_or(0);
    if (a.mig_uuid && a.mig_uuid->empty())
      a.mig_uuid.reset();
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace hami::observability
