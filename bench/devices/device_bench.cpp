// Device plugin benchmarks (targets: decode ≤ 5 µs, fit ≤ 1 µs per node).
//
//   BM_DecodeRegister8Gpu/{Abi,Handle}  decode_node on an 8-GPU A100 node
//                                       (the annotation HAMi's NVIDIA device
//                                       plugin writes, 1.2 KB)
//   BM_Fit2Of8/{Abi,Handle}             fit a 2-GPU request (20000 MiB, 30 %
//                                       cores) on that node, half the cards
//                                       partly used
//
// "Abi" calls nvidia.so's vtable directly with sinks that only count, i.e.
// the plugin's own cost; "Handle" goes through hami::host's
// DevicePluginHandle, which copies the results into host-owned values.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "hami/device.h"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"

namespace {

hami_str hs(const std::string& s) {
  return hami_str{s.data(), s.size()};
}

std::string register_8_a100() {
  std::string v = "[";
  for (int i = 0; i < 8; ++i) {
    if (i > 0)
      v += ",";
    v += R"({"id":"GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d144)" + std::to_string(i) + R"(",)";
    if (i > 0)
      v += R"("index":)" + std::to_string(i) + ",";
    v += R"("count":10,"devmem":40960,"devcore":100,"type":"NVIDIA A100-SXM4-40GB",)";
    if (i >= 4)
      v += R"("numa":1,)";
    v += R"("mode":"hami-core","health":true})";
  }
  return v + "]";
}

void log_nothing(void*, int32_t, hami_str) {}
int64_t clock_fixed(void*) {
  return 1767225600;
}
const hami_host_api kApi{sizeof(hami_host_api), &log_nothing, &clock_fixed};
const hami_host_info kHost{sizeof(hami_host_info), HAMI_ABI_MAJOR, HAMI_ABI_MINOR, &kApi, nullptr,
                           hami_str{"bench", 5}};

// nvidia.so opened at the ABI, one instance with the chart defaults.
struct RawNvidia {
  void* handle = nullptr;
  const hami_device_vtable* vt = nullptr;
  hami_instance* instance = nullptr;
  RawNvidia() {
    const std::string file = std::string(HAMI_BENCH_PLUGIN_DIR) + "/nvidia.so";
    handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
      throw std::runtime_error(dlerror());
    auto* entry =
        reinterpret_cast<hami_plugin_negotiate_t*>(dlsym(handle, HAMI_PLUGIN_ENTRY_POINT));
    hami_plugin_info info{};
    info.struct_size = sizeof info;
    char err[256] = {};
    if (entry(&kHost, &info, hami_errbuf{err, sizeof err}) != HAMI_OK)
      throw std::runtime_error(err);
    vt = static_cast<const hami_device_vtable*>(info.vtable);
    if (vt->create(&kHost, hami_str{"{}", 2}, &instance, hami_errbuf{err, sizeof err}) != HAMI_OK) {
      throw std::runtime_error(err);
    }
  }
  ~RawNvidia() {
    vt->destroy(instance);
    dlclose(handle);
  }
};

// The same plugin loaded the way the scheduler loads it.
struct HostNvidia {
  hami::host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                                    [] { return int64_t{1767225600}; }};
  hami::host::PluginRegistry registry;
  const hami::host::DevicePluginHandle* handle = nullptr;
  HostNvidia() {
    hami::host::LoaderOptions options;
    options.directory = HAMI_BENCH_PLUGIN_DIR;
    options.allow_writable = true;
    registry = hami::host::PluginRegistry::load(
        options, {hami::host::PluginSpec{"nvidia", "nvidia.so", HAMI_KIND_DEVICE, "{}"}}, services);
    handle = registry.device("nvidia");
  }
};

struct Node {
  std::string name = "gpu-node-17";
  std::string key = "hami.io/node-nvidia-register";
  std::string value = register_8_a100();
  hami_kv kv{hs(key), hs(value)};
  hami_node_view view{};
  Node() {
    view.struct_size = sizeof view;
    view.name = hs(name);
    view.annotations = &kv;
    view.annotations_len = 1;
  }
};

// 8 A100s, numa 0/1, cards 0-3 carrying some load; tried in spread order
// (emptiest first) as the scheduling policy would hand them over.
struct FitSetup {
  std::vector<std::string> ids;
  std::string type = "NVIDIA A100-SXM4-40GB";
  std::string mode = "hami-core";
  std::vector<hami_device> devices;
  std::vector<hami_device_usage> usage;
  hami_container_view container{};
  hami_pod_view pod{};
  hami_device_request request{sizeof(hami_device_request), 2, 20000, 0, 30, 0};
  hami_fit_input in{};
  FitSetup() {
    for (int i = 0; i < 8; ++i)
      ids.push_back("GPU-0fc3eda5-e98b-a25b-5b0d-cf5c855d144" + std::to_string(i));
    devices.resize(8);
    for (int i = 0; i < 8; ++i) {
      hami_device& d = devices[static_cast<size_t>(i)];
      d.struct_size = sizeof d;
      d.id = hs(ids[static_cast<size_t>(i)]);
      d.type = hs(type);
      d.mode = hs(mode);
      d.index = static_cast<uint32_t>(i);
      d.count = 10;
      d.memory_mib = 40960;
      d.cores = 100;
      d.numa = i < 4 ? 0 : 1;
      d.flags = HAMI_DEVICE_HEALTHY;
    }
    // Emptiest first: 7,6,5,4 idle, then 3..0 increasingly used.
    for (int k = 7; k >= 0; --k) {
      hami_device_usage u{};
      u.struct_size = sizeof u;
      u.device = &devices[static_cast<size_t>(k)];
      if (k < 4) {
        u.used = 4 - k;
        u.used_memory_mib = 8000 * (4 - k);
        u.used_cores = 20 * (4 - k);
      }
      usage.push_back(u);
    }
    container.struct_size = sizeof container;
    container.name = hami_str{"worker", 6};
    pod.struct_size = sizeof pod;
    pod.namespace_ = hami_str{"ml", 2};
    pod.name = hami_str{"train-0", 7};
    pod.containers = &container;
    pod.containers_len = 1;
    in.struct_size = sizeof in;
    in.pod = &pod;
    in.request = &request;
    in.devices = usage.data();
    in.devices_len = usage.size();
  }
};

void count_device(void* ctx, const hami_device*) {
  ++*static_cast<int*>(ctx);
}
void ignore_pair(void*, hami_str, hami_str, int32_t) {}
void ignore_text(void*, const char*, size_t) {}

void BM_DecodeRegister8Gpu_Abi(benchmark::State& state) {
  RawNvidia nv;
  Node node;
  int devices = 0;
  const hami_device_sink sink{sizeof(hami_device_sink), &devices, &count_device, &ignore_pair};
  char err[256];
  for (auto _ : state) {
    devices = 0;
    const hami_status s =
        nv.vt->decode_node(nv.instance, &node.view, &sink, hami_errbuf{err, sizeof err});
    if (s != HAMI_OK || devices != 8)
      state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(devices);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(node.value.size()));
}
BENCHMARK(BM_DecodeRegister8Gpu_Abi);

void BM_DecodeRegister8Gpu_Handle(benchmark::State& state) {
  HostNvidia nv;
  Node node;
  for (auto _ : state) {
    auto inventory = nv.handle->decode_node(node.view);
    if (inventory.devices.size() != 8)
      state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(inventory);
  }
}
BENCHMARK(BM_DecodeRegister8Gpu_Handle);

void BM_Fit2Of8_Abi(benchmark::State& state) {
  RawNvidia nv;
  FitSetup f;
  hami_fit_pick picks[2] = {};
  hami_fit_output out{};
  out.struct_size = sizeof out;
  out.picks = picks;
  out.picks_cap = 2;
  out.reason = hami_sink{nullptr, &ignore_text};
  char err[256];
  for (auto _ : state) {
    const hami_status s = nv.vt->fit(nv.instance, &f.in, &out, hami_errbuf{err, sizeof err});
    if (s != HAMI_OK || out.fits != 1)
      state.SkipWithError("fit failed");
    benchmark::DoNotOptimize(picks);
  }
}
BENCHMARK(BM_Fit2Of8_Abi);

void BM_Fit2Of8_Handle(benchmark::State& state) {
  HostNvidia nv;
  FitSetup f;
  hami_fit_pick picks[2] = {};
  for (auto _ : state) {
    const auto r = nv.handle->fit(f.in, picks);
    if (!r.fits)
      state.SkipWithError("fit failed");
    benchmark::DoNotOptimize(picks);
  }
}
BENCHMARK(BM_Fit2Of8_Handle);

// The failure path builds HAMi's reason text: no card has 41000 MiB free.
void BM_Fit2Of8_NoFit_Handle(benchmark::State& state) {
  HostNvidia nv;
  FitSetup f;
  f.request.memory_mib = 41000;
  hami_fit_pick picks[2] = {};
  for (auto _ : state) {
    const auto r = nv.handle->fit(f.in, picks);
    if (r.fits || r.reason != "8/8 CardInsufficientMemory")
      state.SkipWithError("unexpected fit");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_Fit2Of8_NoFit_Handle);

}  // namespace

BENCHMARK_MAIN();
