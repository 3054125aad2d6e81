#include "scheduling_env.hpp"

namespace hami::testing {

std::string mi300x_node(std::string_view name) {
  return "- kind: Node\n  metadata:\n    name: " + std::string(name) +
         "\n    annotations:\n      hami.io/node-amd-register: "
         R"('[{"id":"amd-0","count":4,"devmem":196608,"devcore":304,"type":"AMD Instinct MI300X VF","mode":"hami-core","health":true}]')"
         "\n  status: {capacity: {amd.com/gpu: \"4\"}, allocatable: {amd.com/gpu: \"4\"}}\n";
}

std::string nvidia_node(std::string_view name, int gpus, int64_t memory, std::string_view type,
                        std::string_view extra_annotations) {
  std::string reg = "[";
  for (int i = 0; i < gpus; ++i) {
    if (i > 0)
      reg += ",";
    reg += R"({"id":"GPU-)" + std::string(name) + "-" + std::to_string(i) + R"(","index":)" +
           std::to_string(i) + R"(,"count":10,"devmem":)" + std::to_string(memory) +
           R"(,"devcore":100,"type":")" + std::string(type) + R"(","numa":)" +
           std::to_string(i < (gpus + 1) / 2 ? 0 : 1) + R"(,"mode":"hami-core","health":true})";
  }
  reg += "]";
  // YAML single-quoted scalar: double any single quote.
  std::string quoted;
  for (const char c : reg)
    quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return "- kind: Node\n  metadata:\n    name: " + std::string(name) +
         "\n    annotations:\n      hami.io/node-nvidia-register: '" + quoted + "'\n" +
         std::string(extra_annotations) + "  status:\n    allocatable:\n      nvidia.com/gpu: \"" +
         std::to_string(gpus * 10) + "\"\n    capacity:\n      nvidia.com/gpu: \"" +
         std::to_string(gpus * 10) + "\"\n";
}

namespace {

std::string containers_json(const std::vector<Limits>& list, std::string_view prefix) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0)
      out += ",";
    out +=
        R"({"name":")" + std::string(prefix) + std::to_string(i) + R"(","resources":{"limits":{)";
    for (size_t k = 0; k < list[i].size(); ++k) {
      if (k > 0)
        out += ",";
      out += "\"" + list[i][k].first + "\":\"" + list[i][k].second + "\"";
    }
    out += "}}}";
  }
  return out + "]";
}

}  // namespace

std::string pod_json(std::string_view ns, std::string_view name, std::string_view uid,
                     const std::vector<Limits>& app, const std::vector<Limits>& init,
                     std::string_view annotations_json) {
  std::string json = R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + std::string(name) +
                     R"(","namespace":")" + std::string(ns) + R"(","uid":")" + std::string(uid) +
                     R"(","annotations":)" + std::string(annotations_json) +
                     R"(},"spec":{"schedulerName":"hami-scheduler","containers":)" +
                     containers_json(app, "c");
  if (!init.empty())
    json += R"(,"initContainers":)" + containers_json(init, "init");
  json += R"(},"status":{"phase":"Pending"}})";
  return json;
}

}  // namespace hami::testing
