// In-process admission throughput. The request is the seed's benchmark body
// (tests/admission/data/admission-gpu.json, a 5 KB controller-made GPU pod);
// the answer is the seed's reply. Run pinned to one core:
//   taskset -c 0 build/release/bench/admission/admission_bench
// items_per_second is reviews per second on that core.
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>

#include <string>

#include "admission/admission_service.hpp"
#include "admission/json_patch.hpp"
#include "admission/pod_patcher.hpp"
#include "admission/review_codec.hpp"
#include "k8s/pod.hpp"
#include "production_webhook.hpp"

namespace {

using namespace hami;

const std::string& gpu_review() {
  static const std::string body = bench::read_file(std::string(HAMI_BENCH_SOURCE_DIR) +
                                                   "/tests/admission/data/admission-gpu.json");
  return body;
}

const std::string& plain_review() {
  static const std::string body = bench::read_file(std::string(HAMI_BENCH_SOURCE_DIR) +
                                                   "/tests/admission/data/admission-plain.json");
  return body;
}

const bench::ProductionWebhook& webhook() {
  static const bench::ProductionWebhook instance(HAMI_BENCH_PLUGIN_DIR, HAMI_BENCH_SOURCE_DIR);
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
