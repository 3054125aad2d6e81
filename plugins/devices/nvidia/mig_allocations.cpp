#include "mig_allocations.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <limits>
#include <set>
#include <utility>

#include "errors.hpp"
#include "hami/go_text.hpp"
#include "text.hpp"

namespace hami::devices::nvidia {
namespace {

using rapidjson::Value;

std::string_view name_of(const Value& key) {
  return {key.GetString(), key.GetStringLength()};
}

[[noreturn]] void type_error(std::size_t entry, std::string_view key, std::string_view want) {
  throw InvalidInput("MIG allocation " + std::to_string(entry) + " key \"" + std::string(key) +
                     "\": not " + std::string(want));
}

void read_int(const Value& v, std::size_t entry, std::string_view key, std::int64_t& out) {
  if (v.IsNull())
    return;
  if (!v.IsInt64())
    type_error(entry, key, "an integer");
  out = v.GetInt64();
}

void read_u32(const Value& v, std::size_t entry, std::string_view key, std::uint32_t& out) {
  if (v.IsNull())
    return;
  if (!v.IsUint64() || v.GetUint64() > std::numeric_limits<std::uint32_t>::max())
    type_error(entry, key, "a uint32");
  out = static_cast<std::uint32_t>(v.GetUint64());
}

void read_optional_u32(const Value& v, std::size_t entry, std::string_view key,
                       std::optional<std::uint32_t>& out) {
  if (v.IsNull()) {
    out.reset();  // null sets a Go pointer to nil
    return;
  }
  std::uint32_t n = 0;
  read_u32(v, entry, key, n);
  out = n;
}

void read_string(const Value& v, std::size_t entry, std::string_view key, std::string& out) {
  if (v.IsNull())
    return;
  if (!v.IsString())
    type_error(entry, key, "a string");
  out = go_decoded_string({v.GetString(), v.GetStringLength()});
}

void read_placement(const Value& v, std::size_t entry, MigPlacement& out) {
  if (v.IsNull())
    return;
  if (!v.IsObject())
    type_error(entry, "placement", "an object");
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    const std::string_view key = name_of(it->name);
    if (iequals(key, "start"))
      read_u32(it->value, entry, "start", out.start);
    else if (iequals(key, "size"))
      read_u32(it->value, entry, "size", out.size);
  }
}

MigAllocation read_entry(const Value& v, std::size_t entry) {
  MigAllocation a;
  if (v.IsNull())
    return a;  // Go leaves the element zero-valued
  if (!v.IsObject())
    throw InvalidInput("MIG allocation " + std::to_string(entry) + " is not an object");
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    const std::string_view key = name_of(it->name);
    const Value& value = it->value;
    if (iequals(key, "containerIndex"))
      read_int(value, entry, "containerIndex", a.container_index);
    else if (iequals(key, "deviceIndex"))
      read_int(value, entry, "deviceIndex", a.device_index);
    else if (iequals(key, "gpuUUID"))
      read_string(value, entry, "gpuUUID", a.gpu_uuid);
    else if (iequals(key, "profile"))
      read_string(value, entry, "profile", a.profile);
    else if (iequals(key, "placement"))
      read_placement(value, entry, a.placement);
    else if (iequals(key, "migUUID"))
      read_string(value, entry, "migUUID", a.mig_uuid);
    else if (iequals(key, "gpuInstanceID"))
      read_optional_u32(value, entry, "gpuInstanceID", a.gpu_instance_id);
    else if (iequals(key, "computeInstanceID"))
      read_optional_u32(value, entry, "computeInstanceID", a.compute_instance_id);
  }
  return a;
}

void check_strictly(const std::vector<MigAllocation>& entries) {
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const MigAllocation& a = entries[i];
    if (a.container_index < 0 || a.device_index < 0 || a.gpu_uuid.empty() || a.profile.empty() ||
        a.placement.size == 0) {
      throw InvalidInput("MIG allocation " + std::to_string(i) + " is incomplete");
    }
    const int runtime_fields = (a.mig_uuid.empty() ? 0 : 1) + (a.gpu_instance_id ? 1 : 0) +
                               (a.compute_instance_id ? 1 : 0);
    if (runtime_fields != 0 && runtime_fields != 3)
      throw InvalidInput("MIG allocation " + std::to_string(i) + " has partial runtime identity");
    if (!seen.emplace(a.container_index, a.device_index).second) {
      throw InvalidInput("duplicate MIG allocation for container " +
                         std::to_string(a.container_index) + " device " +
                         std::to_string(a.device_index));
    }
  }
}

}  // namespace

std::vector<MigAllocation> decode_mig_allocations(std::string_view text, MigAllocationCheck check) {
  if (text.empty())
    return {};
  rapidjson::Document doc;
  // Iterative: nesting depth costs heap, not stack.
  doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (doc.HasParseError()) {
    throw InvalidInput("invalid JSON at offset " + std::to_string(doc.GetErrorOffset()) + ": " +
                       rapidjson::GetParseError_En(doc.GetParseError()));
  }
  std::vector<MigAllocation> out;
  if (doc.IsNull())
    return out;
  if (!doc.IsArray())
    throw InvalidInput("not a JSON array");
  out.reserve(doc.Size());
  for (rapidjson::SizeType i = 0; i < doc.Size(); ++i)
    out.push_back(read_entry(doc[i], i));
  if (check == MigAllocationCheck::Strict)
    check_strictly(out);
  return out;
}

std::string encode_mig_allocations(std::span<const MigAllocation> entries) {
  std::string out = "[";
  for (const MigAllocation& a : entries) {
    if (out.size() > 1)
      out += ',';
    out += "{\"containerIndex\":";
    out += std::to_string(a.container_index);
    out += ",\"deviceIndex\":";
    out += std::to_string(a.device_index);
    out += ",\"gpuUUID\":";
    append_go_json_string(out, a.gpu_uuid);
    out += ",\"profile\":";
    append_go_json_string(out, a.profile);
    out += ",\"placement\":{\"start\":";
    out += std::to_string(a.placement.start);
    out += ",\"size\":";
    out += std::to_string(a.placement.size);
    out += '}';
    if (!a.mig_uuid.empty()) {
      out += ",\"migUUID\":";
      append_go_json_string(out, a.mig_uuid);
    }
    if (a.gpu_instance_id) {
      out += ",\"gpuInstanceID\":";
      out += std::to_string(*a.gpu_instance_id);
    }
    if (a.compute_instance_id) {
      out += ",\"computeInstanceID\":";
      out += std::to_string(*a.compute_instance_id);
    }
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace hami::devices::nvidia
