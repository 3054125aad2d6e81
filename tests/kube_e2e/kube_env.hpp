// Shared pieces of the end-to-end tests: a fake API server seeded with GPU
// nodes carrying HAMi's NVIDIA register annotations, a kubeconfig pointing
// at it, a host config loading the real plugins, and small JSON helpers.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "config/host_config.hpp"
#include "fake_apiserver.hpp"
#include "plugin_entries.hpp"

namespace hami::e2e {

using json = nlohmann::json;
using namespace std::chrono_literals;

// The GPU ids of node `node`: "GPU-<node>-<i>".
inline std::string gpu_id(std::string_view node, int i) {
  return "GPU-" + std::string(node) + "-" + std::to_string(i);
}

// A Node registering `gpus` A100s of 40960 MiB, 100 cores, split count 10,
// as HAMi's NVIDIA device plugin writes them (config/demo-cluster.yaml).
inline std::string gpu_node(std::string_view name, int gpus) {
  json reg = json::array();
  for (int i = 0; i < gpus; ++i) {
    reg.push_back({{"id", gpu_id(name, i)},
                   {"index", i},
                   {"count", 10},
                   {"devmem", 40960},
                   {"devcore", 100},
                   {"type", "NVIDIA A100-SXM4-40GB"},
                   {"numa", 0},
                   {"mode", "hami-core"},
                   {"health", true}});
  }
  const std::string count = std::to_string(gpus * 10);
  json node = {{"apiVersion", "v1"},
               {"kind", "Node"},
               {"metadata",
                {{"name", name},
                 {"labels", {{"kubernetes.io/hostname", name}, {"gpu", "on"}}},
                 {"annotations", {{"hami.io/node-nvidia-register", reg.dump()}}}}},
               {"status",
                {{"capacity", {{"cpu", "96"}, {"nvidia.com/gpu", count}}},
                 {"allocatable", {{"cpu", "95"}, {"nvidia.com/gpu", count}}}}}};
  return node.dump();
}

// A pending pod asking one GPU with `memory` MiB and `cores` percent.
inline json gpu_pod(std::string_view ns, std::string_view name, std::string_view uid, int memory,
                    int cores) {
  json limits = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", std::to_string(memory)}};
  if (cores > 0)
    limits["nvidia.com/gpucores"] = std::to_string(cores);
  json meta = {{"name", name}, {"namespace", ns}};
  if (!uid.empty())
    meta["uid"] = uid;
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", meta},
      {"spec",
       {{"schedulerName", "hami-scheduler"},
        {"containers",
         json::array(
             {{{"name", "main"}, {"image", "cuda:12"}, {"resources", {{"limits", limits}}}}})}}},
      {"status", {{"phase", "Pending"}}}};
}

inline std::string namespace_object(std::string_view name) {
  return json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}.dump();
}

// A kubeconfig naming `server` (http:// for the fake server), with an
// anonymous user: no credential is ever sent to an http:// server.
inline std::filesystem::path write_kubeconfig(const std::filesystem::path& dir,
                                              const std::string& server) {
  const auto file = dir / "kubeconfig";
  std::ofstream(file)
      << "apiVersion: v1\nkind: Config\ncurrent-context: fake\n"
         "clusters:\n- name: fake\n  cluster:\n    server: "
      << server
      << "\nusers:\n- name: tester\n  user: {}\n"
         "contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: tester\n"
         "    namespace: default\n";
  return file;
}

// The host config of the tests: the API server through `kubeconfig`, the
// real plugins (nvidia, amd, vgpu, hami-policies), self-signed TLS, the
// webhook and the extender listeners on ephemeral loopback ports.
inline config::HostConfig host_config(const std::filesystem::path& kubeconfig) {
  config::HostConfig c;
  c.source = "e2e.yaml";
  c.listen.host = "127.0.0.1";
  c.listen.port = 0;
  c.tls.self_signed = true;
  c.extender.listen.host = "127.0.0.1";
  c.extender.listen.port = 0;
  c.plugins.directory = HAMI_PLUGIN_DIR;
  c.plugins.allow_writable = true;
  hami::testing::use_production_plugins(c);
  c.cluster.source = config::ClusterSource::kubernetes;
  c.cluster.kubernetes.kubeconfig = kubeconfig;
  c.cluster.kubernetes.request_timeout_seconds = 5;
  c.cluster.kubernetes.qps = 0;
  return c;
}

// A fresh temporary folder, removed at destruction.
class TempFolder {
 public:
  TempFolder() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hami-e2e-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr)
      throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Polls `done` every 2 ms for at most `limit`.
template <typename F>
bool eventually(F done, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

// The stored object as JSON (null when absent).
inline json stored(const hami::testing::FakeApiServer& fake, std::string_view kind,
                   std::string_view ns, std::string_view name) {
  const auto text = fake.object(kind, ns, name);
  return text ? json::parse(*text) : json();
}

inline std::string annotation(const json& object, const std::string& key) {
  const auto& meta = object.at("metadata");
  if (!meta.contains("annotations") || !meta["annotations"].contains(key))
    return "<none>";
  return meta["annotations"][key].get<std::string>();
}

}  // namespace hami::e2e
