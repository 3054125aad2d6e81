#include "reference_model.hpp"

#include <charconv>

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

std::optional<DeviceMap> parse_allocation(std::string_view value, std::string& error) {
  DeviceMap out;
  for (const std::string_view container : split(value, ';')) {
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
      DeviceTotals& t = out[std::string(fields[0])];
      t.memory += *memory;
      t.cores += *cores;
      t.slots += 1;
    }
  }
  return out;
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
    out[pod.uid] = ExpectedCharge{pod.uid, pod.ns, pod.name, *node, std::move(*devices)};
  }
  return out;
}

DeviceMap device_totals(const std::map<std::string, ExpectedCharge>& charges) {
  DeviceMap out;
  for (const auto& [uid, charge] : charges) {
    for (const auto& [id, t] : charge.devices) {
      DeviceTotals& sum = out[id];
      sum.memory += t.memory;
      sum.cores += t.cores;
      sum.slots += t.slots;
    }
  }
  return out;
}

}  // namespace hami::model
