// Fuzz target: any bytes as a simulate workload (YAML or JSON). The only
// acceptable failure is a WorkloadError; every pod it yields is a Pod
// object the pod model accepts, named as the parser says.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "k8s/pod.hpp"
#include "ops/workload_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    // A small bound keeps one input's expansion cheap.
    for (const auto& pod : hami::ops::parse_workload(text, "fuzz", 1000)) {
      rapidjson::Document doc;
      doc.Parse(pod.json.data(), pod.json.size());
      if (doc.HasParseError() || !doc.IsObject())
        std::abort();
      const hami::k8s::PodModel model(doc);
      const hami_str name = model.view().name;
      if (std::string_view(name.ptr, name.len) != pod.name)
        std::abort();
    }
  } catch (const hami::ops::WorkloadError&) {
  }
  return 0;
}
