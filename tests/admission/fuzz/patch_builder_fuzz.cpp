// Fuzz target: the JSON Patch builder (PodPatcher) against an independent
// RFC 6902 implementation (nlohmann-json).
//
// Input: a pod as JSON, a line "#", then one mutation per line:
//   L <container> <resource> <quantity>   set_limit
//   E <container> <name> <value>          set_env
//   Q <container> <resource> <quantity>   set_request
//   A <key> <value>                       set_annotation
//   R <name>                              set_runtime_class_if_absent
//   S <name>                              set_scheduler_name
// Properties: the patch is a JSON array that applies cleanly to the pod;
// the patched pod, parsed again, has exactly the view the mutated model
// has; and the mutations that decide the final state (the last value per
// limit, request, env name, annotation and scheduler name, the first
// runtime class) produce an
// empty patch on the patched pod.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "admission/json_patch.hpp"
#include "admission/json_text.hpp"
#include "admission/pod_patcher.hpp"
#include "k8s/pod.hpp"

namespace {

void require(bool condition) {
  if (!condition)
    __builtin_trap();
}

struct Mutation {
  char kind;
  size_t container;
  std::string key;
  std::string value;
};

std::vector<Mutation> parse_script(std::string_view text) {
  std::vector<Mutation> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line) && out.size() < 64) {
    std::istringstream words(line);
    Mutation m{};
    if (!(words >> m.kind))
      continue;
    if (m.kind == 'L' || m.kind == 'E' || m.kind == 'Q') {
      if (!(words >> m.container >> m.key))
        continue;
      words >> m.value;
    } else if (m.kind == 'A') {
      if (!(words >> m.key))
        continue;
      words >> m.value;
    } else if (m.kind == 'R' || m.kind == 'S') {
      words >> m.key;
    } else {
      continue;
    }
    out.push_back(std::move(m));
  }
  return out;
}

// The script reduced to the mutations that decide the final state: one per
// limit, env name and scheduler name, at the place of its first mutation
// (an env entry keeps its position when replaced) with the value of its
// last; and the first non-empty runtime class.
std::vector<Mutation> decisive(const std::vector<Mutation>& script) {
  const auto same = [](const Mutation& a, const Mutation& b) {
    return a.kind == b.kind && (a.kind == 'S' || (a.kind == 'A' && a.key == b.key) ||
                                (a.container == b.container && a.key == b.key));
  };
  std::vector<Mutation> out;
  bool runtime_class_seen = false;
  for (size_t i = 0; i < script.size(); ++i) {
    const Mutation& m = script[i];
    if (m.kind == 'R') {
      if (!m.key.empty() && !runtime_class_seen)
        out.push_back(m);
      runtime_class_seen = runtime_class_seen || !m.key.empty();
      continue;
    }
    bool seen_before = false;
    for (size_t j = 0; j < i && !seen_before; ++j)
      seen_before = same(script[j], m);
    if (seen_before)
      continue;
    Mutation last = m;
    for (size_t j = i + 1; j < script.size(); ++j) {
      if (same(script[j], m))
        last = script[j];
    }
    out.push_back(std::move(last));
  }
  return out;
}

std::string sv(hami_str s) {
  return {s.ptr, s.len};
}

// The parts of a view the patcher changes, in comparable form.
struct Snapshot {
  std::string scheduler_name, runtime_class;
  std::vector<std::map<std::string, std::string>> limits;
  std::vector<std::map<std::string, std::string>> requests;
  std::vector<std::vector<std::pair<std::string, std::string>>> env;
  std::map<std::string, std::string> annotations;
  bool operator==(const Snapshot&) const = default;
};

Snapshot snapshot(const hami::k8s::PodModel& pod) {
  Snapshot s;
  const hami_pod_view& v = pod.view();
  s.scheduler_name = sv(v.scheduler_name);
  s.runtime_class = sv(v.runtime_class_name);
  for (size_t k = 0; k < v.annotations_len; ++k)
    s.annotations[sv(v.annotations[k].key)] = sv(v.annotations[k].value);
  for (size_t i = 0; i < v.containers_len; ++i) {
    const hami_container_view& c = v.containers[i];
    auto& limits = s.limits.emplace_back();
    for (size_t k = 0; k < c.limits_len; ++k)
      limits[sv(c.limits[k].key)] = sv(c.limits[k].value);
    auto& requests = s.requests.emplace_back();
    for (size_t k = 0; k < c.requests_len; ++k)
      requests[sv(c.requests[k].key)] = sv(c.requests[k].value);
    auto& env = s.env.emplace_back();
    for (size_t k = 0; k < c.env_len; ++k)
      env.emplace_back(sv(c.env[k].key), sv(c.env[k].value));
  }
  return s;
}

// Runs the script's mutations through the patcher (containers out of
// range are skipped).
void apply(hami::admission::PodPatcher& patcher, const hami::k8s::PodModel& pod,
           const std::vector<Mutation>& script) {
  for (const Mutation& m : script) {
    switch (m.kind) {
      case 'L':
        if (m.container < pod.container_count())
          patcher.set_limit(m.container, m.key, m.value);
        break;
      case 'E':
        if (m.container < pod.container_count())
          patcher.set_env(m.container, m.key, m.value);
        break;
      case 'Q':
        if (m.container < pod.container_count())
          patcher.set_request(m.container, m.key, m.value);
        break;
      case 'A':
        patcher.set_annotation(m.key, m.value);
        break;
      case 'R':
        patcher.set_runtime_class_if_absent(m.key);
        break;
      default:
        patcher.set_scheduler_name(m.key);
        break;
    }
  }
}

// Applies the script to `pod_text`; returns the patch, the mutated model's
// snapshot, or nullopt when the pod is not one the model accepts or the
// script holds text that is not UTF-8.
std::optional<std::pair<std::string, Snapshot>> run(const std::string& pod_text,
                                                    const std::vector<Mutation>& script) {
  rapidjson::Document doc;
  doc.Parse(pod_text.data(), pod_text.size());
  if (doc.HasParseError())
    return std::nullopt;
  std::optional<hami::k8s::PodModel> pod;
  try {
    pod.emplace(doc);
  } catch (const hami::k8s::ObjectError&) {
    return std::nullopt;
  }
  hami::admission::JsonPatch patch;
  hami::admission::PodPatcher patcher(*pod, patch);
  bool valid_text = true;
  for (const Mutation& m : script) {
    valid_text = valid_text && hami::admission::is_valid_utf8(m.key) &&
                 hami::admission::is_valid_utf8(m.value);
  }
  try {
    apply(patcher, *pod, script);
  } catch (const std::invalid_argument&) {
    require(!valid_text);  // only text JSON cannot carry is refused
    return std::nullopt;
  }
  return std::pair{patch.json(), snapshot(*pod)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t cut = input.find("\n#\n");
  if (cut == std::string_view::npos || size > 64 * 1024)
    return 0;
  // nlohmann normalises the pod (no duplicate keys, valid UTF-8), so both
  // implementations read the same document.
  nlohmann::json original;
  try {
    original = nlohmann::json::parse(input.substr(0, cut));
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  if (!original.is_object())
    return 0;
  const std::string pod_text = original.dump();
  const std::vector<Mutation> script = parse_script(input.substr(cut + 3));

  const auto first = run(pod_text, script);
  if (!first)
    return 0;  // not a pod, or text that cannot be carried
  const nlohmann::json ops = nlohmann::json::parse(first->first);
  require(ops.is_array());
  nlohmann::json patched;
  try {
    patched = original.patch(ops);
  } catch (const nlohmann::json::exception&) {
    __builtin_trap();  // a patch that the API server would fail to apply
  }
  const std::vector<Mutation> final_state = decisive(script);
  const auto reduced = run(pod_text, final_state);
  require(reduced.has_value() && reduced->second == first->second);
  const auto again = run(patched.dump(), final_state);
  require(again.has_value());
  require(again->first == "[]");            // idempotent
  require(again->second == first->second);  // the JSON now says what the model says
  return 0;
}
