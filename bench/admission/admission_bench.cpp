// In-process admission throughput. The request is the seed's benchmark body
// (tests/admission/data/admission-gpu.json, a 5 KB controller-made GPU pod);
// the answer is the seed's reply. Run pinned to one core:
//   taskset -c 0 build/release/bench/admission/admission_bench
// items_per_second is reviews per second on that core.
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>

#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "admission/admission_service.hpp"
#include "admission/json_patch.hpp"
#include "admission/pod_patcher.hpp"
#include "admission/review_codec.hpp"
#include "config/device_config.hpp"
#include "k8s/pod.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_loader.hpp"

namespace {

using namespace hami;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::string text(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return text;
}

const std::string& gpu_review() {
  static const std::string body =
      read_file(std::string(HAMI_BENCH_SOURCE_DIR) + "/tests/admission/data/admission-gpu.json");
  return body;
}

const std::string& plain_review() {
  static const std::string body =
      read_file(std::string(HAMI_BENCH_SOURCE_DIR) + "/tests/admission/data/admission-plain.json");
  return body;
}

// The production set-up: nvidia.so and amd.so with the shipped device
// config, vgpu.so with its defaults, no cluster view.
class Webhook {
 public:
  Webhook() : services_([](int32_t, std::string_view, std::string_view) {}, [] { return 0; }) {
    const auto config = config::DeviceConfigFile::load(
        std::string(HAMI_BENCH_SOURCE_DIR) + "/config/device-config.yaml", "deviceConfigFile");
    const host::LoaderOptions options{HAMI_BENCH_PLUGIN_DIR, false};
    host::PluginLoader loader(options, services_);
    for (const std::string name : {"nvidia", "amd"}) {
      devices_.push_back(loader.load_device(
          {name, name + ".so", HAMI_KIND_DEVICE, config.section_json(name).value_or("{}")}));
    }
    policy_.emplace(loader.load_admission({"vgpu", "vgpu.so", HAMI_KIND_ADMISSION, "{}"}));
    service_.emplace(devices_, *policy_, nullptr, admission::AdmissionSettings{});
  }
  const admission::AdmissionService& service() const { return *service_; }

 private:
  host::HostServices services_;
  std::vector<host::DevicePluginHandle> devices_;
  std::optional<host::AdmissionPluginHandle> policy_;
  std::optional<admission::AdmissionService> service_;
};

const Webhook& webhook() {
  static const Webhook instance;
  return instance;
}

// The whole review: decode, PodModel, the vgpu decision with both device
// plugins over every container, the JSON Patch, the reply envelope.
void BM_ReviewGpuPod(benchmark::State& state) {
  const auto& service = webhook().service();
  const std::string& body = gpu_review();
  size_t bytes = 0;
  for (auto _ : state) {
    admission::HttpReply reply = service.handle("application/json", body);
    bytes += reply.body.size();
    benchmark::DoNotOptimize(reply);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(body.size()));
  benchmark::DoNotOptimize(bytes);
}
BENCHMARK(BM_ReviewGpuPod);

void BM_ReviewPlainPod(benchmark::State& state) {
  const auto& service = webhook().service();
  const std::string& body = plain_review();
  for (auto _ : state) {
    admission::HttpReply reply = service.handle("application/json", body);
    benchmark::DoNotOptimize(reply);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ReviewPlainPod);

// The wire layer alone: decode + PodModel + one patch operation + reply.
void BM_WireOnly(benchmark::State& state) {
  const std::string& body = gpu_review();
  for (auto _ : state) {
    admission::ReviewDocument doc;
    const admission::ReviewRequest request = admission::decode_review(body, doc);
    k8s::PodModel pod(*request.object, request.namespace_);
    admission::JsonPatch patch;
    admission::PodPatcher patcher(pod, patch);
    patcher.set_scheduler_name("hami-scheduler");
    const std::string patch_text = patch.json();
    admission::ReviewReply reply;
    reply.uid = request.uid;
    reply.patch = patch_text;
    std::string out = admission::encode_reply(reply);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_WireOnly);

// JSON parsing alone, for scale: as the decoder does it (in place, into a
// copy of the body) and the copying way.
void BM_ParseInPlace(benchmark::State& state) {
  const std::string& body = gpu_review();
  for (auto _ : state) {
    std::string text(body);
    rapidjson::Document doc;
    doc.ParseInsitu<rapidjson::kParseIterativeFlag>(text.data());
    benchmark::DoNotOptimize(doc);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ParseInPlace);

void BM_ParseCopying(benchmark::State& state) {
  const std::string& body = gpu_review();
  for (auto _ : state) {
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseIterativeFlag>(body.data(), body.size());
    benchmark::DoNotOptimize(doc);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_ParseCopying);

}  // namespace

BENCHMARK_MAIN();
