#include "reference_model.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

namespace hami::model {

namespace {

std::optional<int64_t> number(std::string_view text) {
  int64_t value = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), value);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size())
    return std::nullopt;
  return value;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(sep, start);
    if (end == std::string_view::npos) {
      out.push_back(text.substr(start));
      return out;
    }
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

void add(DeviceTotals& sum, const DeviceTotals& t) {
  sum.memory += t.memory;
  sum.cores += t.cores;
  sum.slots += t.slots;
  sum.holds.insert(sum.holds.end(), t.holds.begin(), t.holds.end());
  std::sort(sum.holds.begin(), sum.holds.end());
}

std::optional<std::vector<DeviceEntry>> parse_entries(std::string_view value, std::string& error) {
  std::vector<DeviceEntry> out;
  size_t segment = 0;
  for (const std::string_view container : split(value, ';')) {
    size_t index = 0;
    for (const std::string_view device : split(container, ':')) {
      if (device.find(',') == std::string_view::npos)
        continue;  // empty or comma-less segments are skipped (§4.2)
      const auto fields = split(device, ',');
      const auto memory = fields.size() == 4 ? number(fields[2]) : std::nullopt;
      const auto cores = fields.size() == 4 ? number(fields[3]) : std::nullopt;
      if (!memory || !cores || fields[0].empty()) {
        error = "malformed device \"" + std::string(device) + "\"";
        return std::nullopt;
      }
      out.push_back({segment, index++, std::string(fields[0]), *memory, *cores});
    }
    ++segment;
  }
  return out;
}

std::optional<DeviceMap> parse_allocation(std::string_view value, std::string& error) {
  const auto entries = parse_entries(value, error);
  if (!entries)
    return std::nullopt;
  // Every entry is a slot of its device, also a second MIG instance of one
  // GPU in the same container, as HAMi's collapse counts (pod_charge.hpp);
  // the model's pods have app containers only.
  DeviceMap out;
  for (const DeviceEntry& e : *entries)
    add(out[e.id], DeviceTotals{e.memory, e.cores, 1, {}});
  return out;
}

std::optional<std::vector<MigEntry>> parse_mig_allocations(std::string_view value,
                                                           std::string& error) {
  using nlohmann::json;
  const json doc = json::parse(value, nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) {
    error = "MIG allocations are not a JSON list";
    return std::nullopt;
  }
  std::vector<MigEntry> out;
  for (const json& e : doc) {
    const auto field = [&](const char* key) -> const json* {
      const auto it = e.is_object() ? e.find(key) : e.end();
      return e.is_object() && it != e.end() ? &*it : nullptr;
    };
    const json* c = field("containerIndex");
    const json* d = field("deviceIndex");
    const json* gpu = field("gpuUUID");
    const json* profile = field("profile");
    const json* at = field("placement");
    const bool ok = c && c->is_number_unsigned() && d && d->is_number_unsigned() && gpu &&
                    gpu->is_string() && profile && profile->is_string() && at && at->is_object() &&
                    at->contains("start") && at->contains("size") &&
                    (*at)["start"].is_number_unsigned() && (*at)["size"].is_number_unsigned() &&
                    (*at)["size"].get<uint64_t>() > 0;
    if (!ok) {
      error = "malformed MIG allocation " + e.dump();
      return std::nullopt;
    }
    out.push_back({c->get<int64_t>(), d->get<int64_t>(), gpu->get<std::string>(),
                   profile->get<std::string>(), (*at)["start"].get<uint32_t>(),
                   (*at)["size"].get<uint32_t>()});
  }
  return out;
}

std::string reservation_text(const MigEntry& e) {
  return std::to_string(e.start) + "," + std::to_string(e.size) + "," +
         std::to_string(e.profile.size()) + ":" + e.profile;
}

std::map<std::string, ExpectedCharge> expected_charges(const StoredState& stored,
                                                       std::vector<std::string>& errors) {
  std::map<std::string, ExpectedCharge> out;
  for (const StoredPod& pod : stored.pods) {
    if (pod.phase == "Succeeded" || pod.phase == "Failed")
      continue;
    const auto allocated = pod.annotation(kAllocated);
    const auto node = pod.annotation(kAssignedNode);
    if (!allocated || !node)
      continue;
    std::string error;
    auto devices = parse_allocation(*allocated, error);
    if (!devices) {
      errors.push_back("pod " + pod.name + " (" + pod.uid + "): " + error);
      continue;
    }
    // The reservations attach to the devices the pod lists (docs/mig.md:
    // those of a GPU it does not list are dropped).
    if (const auto mig = pod.annotation(kMigAllocations)) {
      const auto entries = parse_mig_allocations(*mig, error);
      if (!entries) {
        errors.push_back("pod " + pod.name + " (" + pod.uid + "): " + error);
      } else {
        for (const MigEntry& e : *entries) {
          if (const auto it = devices->find(e.gpu); it != devices->end())
            add(it->second, DeviceTotals{0, 0, 0, {reservation_text(e)}});
        }
      }
    }
    out[pod.uid] = ExpectedCharge{pod.uid, pod.ns, pod.name, *node, std::move(*devices)};
  }
  return out;
}

DeviceMap device_totals(const std::map<std::string, ExpectedCharge>& charges) {
  DeviceMap out;
  for (const auto& [uid, charge] : charges) {
    for (const auto& [id, t] : charge.devices)
      add(out[id], t);
  }
  return out;
}

}  // namespace hami::model
