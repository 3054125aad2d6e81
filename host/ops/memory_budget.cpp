#include "ops/memory_budget.hpp"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "ops/ops_context.hpp"

namespace hami::ops {

namespace {

constexpr uint64_t kPodOverheadBytes = 16 * 1024;
constexpr uint64_t kJsonCopies = 8;  // the workload's, the stored pod's, its model's views, …
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::optional<uint64_t> read_number_file(const char* path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word))
    return std::nullopt;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size())
    return std::nullopt;  // "max": no limit
  return value;
}

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / kGiB);
  return text;
}

}  // namespace

uint64_t simulated_pod_bytes(const WorkloadPod& pod) {
  return kPodOverheadBytes + kJsonCopies * pod.json.size();
}

std::optional<uint64_t> mem_available(std::string_view meminfo) {
  constexpr std::string_view kKey = "MemAvailable:";
  const size_t at = meminfo.find(kKey);
  if (at == std::string_view::npos)
    return std::nullopt;
  std::string_view rest = meminfo.substr(at + kKey.size());
  while (!rest.empty() && rest.front() == ' ')
    rest.remove_prefix(1);
  uint64_t kib = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), kib);
  if (ec != std::errc() || end == rest.data())
    return std::nullopt;
  return kib * 1024;
}

std::optional<uint64_t> available_memory() {
  std::optional<uint64_t> available;
  {
    std::ifstream in("/proc/meminfo");
    std::ostringstream text;
    text << in.rdbuf();
    available = mem_available(text.str());
  }
  const auto limit = read_number_file("/sys/fs/cgroup/memory.max");
  const auto current = read_number_file("/sys/fs/cgroup/memory.current");
  if (limit && current) {
    const uint64_t left = *limit > *current ? *limit - *current : 0;
    if (!available || left < *available)
      available = left;
  }
  return available;
}

void check_workload_memory(std::span<const WorkloadPod> pods, uint64_t available) {
  uint64_t need = 0;
  for (const WorkloadPod& pod : pods)
    need += simulated_pod_bytes(pod);
  if (need <= available)
    return;
  const uint64_t per_pod = need / pods.size();
  throw OpsError("the workload's " + std::to_string(pods.size()) + " pods need about " + gib(need) +
                 " to simulate, and " + gib(available) +
                 " of memory is available: enough for about " +
                 std::to_string(available / per_pod) +
                 " pods; simulate a part of the workload, or free memory");
}

}  // namespace hami::ops
