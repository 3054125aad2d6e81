#include "scheduling/explain_words.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

#include "hami/plugin.hpp"

namespace hami::scheduling {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

bool contains_ci(std::string_view text, std::string_view part) {
  if (part.size() > text.size())
    return false;
  for (size_t i = 0; i + part.size() <= text.size(); ++i) {
    bool same = true;
    for (size_t j = 0; j < part.size() && same; ++j) {
      same = std::tolower(static_cast<unsigned char>(text[i + j])) ==
             std::tolower(static_cast<unsigned char>(part[j]));
    }
    if (same)
      return true;
  }
  return false;
}

// Whether a selector list (HAMi: trimmed comma members, empty ones
// dropped) names `value`: as a case-insensitive part (types) or exactly
// (ids).
bool list_names(std::string_view list, std::string_view value, bool by_part) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos)
      end = list.size();
    const std::string_view member = trim(list.substr(start, end - start));
    if (!member.empty() && (by_part ? contains_ci(value, member) : member == value))
      return true;
    start = end + 1;
  }
  return false;
}

// The vendor's resource domain with its slash ("nvidia.com/"), from the
// count resource its description names; "" when it names none.
std::string_view vendor_domain(const host::DeviceDescription& vendor) {
  const std::string_view r = vendor.count_resource;
  const size_t slash = r.find('/');
  return slash == std::string_view::npos ? std::string_view() : r.substr(0, slash + 1);
}

// The pod's selector annotation of the vendor's domain that keeps `value`
// out ("<key>=<list>"), for keys "use-…<suffix>" / "nouse-…<suffix>"; ""
// when none does. A nouse list naming the value wins over a use list.
std::string excluding_selector(const host::DeviceDescription& vendor, const hami_pod_view& pod,
                               std::string_view suffix, std::string_view value, bool by_part) {
  const std::string_view domain = vendor_domain(vendor);
  if (domain.empty())
    return {};
  std::string use_hit;
  for (size_t i = 0; i < pod.annotations_len; ++i) {
    const std::string_view key = to_sv(pod.annotations[i].key);
    if (key.size() <= domain.size() || key.substr(0, domain.size()) != domain)
      continue;
    const std::string_view name = key.substr(domain.size());
    const bool nouse = name.starts_with("nouse-");
    if ((!nouse && !name.starts_with("use-")) || !name.ends_with(suffix))
      continue;
    const std::string_view list = to_sv(pod.annotations[i].value);
    if (trim(list).empty())
      continue;  // no constraint
    const bool named = list_names(list, value, by_part);
    const std::string hit = std::string(key) + "=" + std::string(list);
    if (nouse && named)
      return hit;
    if (!nouse && !named && use_hit.empty())
      use_hit = hit;
  }
  return use_hit;
}

// A percent vendor's device registers 100 cores: all of it.
constexpr int64_t kWholeDevicePercent = 100;

std::string plural(int64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

std::string device_detail(const host::DeviceDescription& vendor, const hami_pod_view& pod,
                          const hami_device& device, const DeviceUse& use,
                          const hami_device_request& request, std::string_view code,
                          int64_t& memory_short) {
  memory_short = 0;
  const bool percent = vendor.cores_unit == HAMI_CORES_PERCENT;
  const int64_t cores = percent ? std::min<int64_t>(request.cores, 100) : request.cores;
  const int64_t memory = request.memory_mib > 0 ? request.memory_mib
                                                : device.memory_mib * request.memory_percent / 100;
  const int64_t free_memory = device.memory_mib - use.memory_mib;
  const int64_t free_cores = device.cores - use.cores;
  const auto memory_words = [&] {
    return "needs " + std::to_string(memory) + " MiB, " + std::to_string(free_memory) + " MiB free";
  };
  const auto core_words = [&] {
    if (percent && device.cores == kWholeDevicePercent) {
      return "needs " + std::to_string(cores) + " % cores, " + std::to_string(free_cores) +
             " % free";
    }
    // The vendor turns the request into compute units by its own rules, or
    // registers a core count although requests are percent (20 AI cores):
    // the request as written, beside the device's own figures.
    return "cores: asks " + std::to_string(request.cores) + ", " + std::to_string(free_cores) +
           " of " + std::to_string(device.cores) + (percent ? " cores" : " compute units") +
           " free";
  };
  if (code.empty()) {
    // A vendor naming no core resource does not meter cores: the pod asks
    // for none and may use them all.
    if (vendor.cores_resource.empty())
      return memory_words() + "; cores not metered";
    return memory_words() + "; " + core_words();
  }
  if (code == "CardInsufficientMemory") {
    memory_short = std::max<int64_t>(0, memory - free_memory);
    return memory_words();
  }
  if (code == "CardInsufficientCore")
    return core_words();
  if (code == "ExclusiveDeviceAllocateConflict") {
    if (use.used > 0 && cores >= 100 && percent && request.cores >= 100)
      return "needs the whole device: " + plural(use.used, "pod", "pods") + " already on it";
    return "exclusive: " + plural(use.used, "pod", "pods") + " already on it";
  }
  if (code == "CardTimeSlicingExhausted")
    return "all " + plural(device.count, "slot", "slots") + " taken";
  if (code == "CardTypeMismatch") {
    const std::string type(to_sv(device.type));
    const std::string by = excluding_selector(vendor, pod, "type", type, true);
    if (!by.empty())
      return "type " + type + " excluded by " + by;
    return "type " + type + " (mode " + std::string(to_sv(device.mode)) +
           ") not allowed by the pod's annotations";
  }
  if (code == "CardUuidMismatch") {
    const std::string id(to_sv(device.id));
    const std::string by = excluding_selector(vendor, pod, "uuid", id, false);
    if (!by.empty())
      return "id " + id + " excluded by " + by;
    return "id " + id + " not allowed by the pod's annotations";
  }
  if (code == "CardNotHealth")
    return "device not healthy";
  if (code == "CardCordoned")
    return "device cordoned";
  if (code == "CardComputeUnitsExhausted")
    return "cores used up (" + std::to_string(use.cores) + " of " + std::to_string(device.cores) +
           "), the request asks for none";
  if (code == "ResourceQuotaNotFit")
    return "the namespace quota refuses " + std::to_string(memory) + " MiB / " +
           std::to_string(cores) + (percent ? " % cores" : " compute units") + " more";
  return std::string(code);
}

std::string reason_group(std::string_view code) {
  static constexpr std::pair<std::string_view, std::string_view> kGroups[] = {
      {"CardInsufficientMemory", "insufficient memory"},
      {"CardInsufficientCore", "insufficient cores"},
      {"ExclusiveDeviceAllocateConflict", "exclusive conflict"},
      {"CardTimeSlicingExhausted", "no free slot"},
      {"CardTypeMismatch", "type excluded"},
      {"CardUuidMismatch", "id excluded"},
      {"CardNotHealth", "unhealthy device"},
      {"CardCordoned", "cordoned device"},
      {"ResourceQuotaNotFit", "quota exceeded"},
      {"CardComputeUnitsExhausted", "cores used up"},
      {"NumaNotFit", "NUMA mismatch"},
      {"NodeInsufficientDevice", "too few devices"},
      {"AllocatedCardsInsufficientRequest", "too few devices"},
  };
  for (const auto& [c, words] : kGroups) {
    if (c == code)
      return std::string(words);
  }
  return std::string(code);
}

}  // namespace hami::scheduling
