// The demo host (config/dev.yaml's shape: the demo cluster, the real plugins,
// one shared loopback socket) after the walkthrough's binds: every pod's
// per-container metric equals what /allocations says the pod holds, and a
// scrape reports no problem.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>

#include "app/scheduler_host.hpp"
#include "exposition_parser.hpp"
#include "plugin_entries.hpp"
#include "test_support.hpp"

namespace hami::test {
namespace {

constexpr double kMiB = 1048576.0;

config::HostConfig demo_config() {
  config::HostConfig c;
  c.source = "demo.yaml";
  c.listen.host = "127.0.0.1";
  c.listen.port = 0;
  c.tls.self_signed = true;
  c.extender.listen = c.listen;
  c.extender.shared = true;
  c.plugins.directory = HAMI_PLUGIN_DIR;
  c.plugins.allow_writable = true;
  hami::testing::use_production_plugins(c);
  c.cluster.source = config::ClusterSource::file;
  c.cluster.file = std::string(HAMI_SOURCE_DIR) + "/config/demo-cluster.yaml";
  return c;
}

struct DemoHost : ::testing::Test {
  void SetUp() override {
    host = std::make_unique<app::SchedulerHost>(demo_config(), logger);
    host->start();
  }

  std::string call(const std::string& method, const std::string& path,
                   const std::string& body = "") {
    TlsConnection conn(ctx.get(), host->server().port());
    EXPECT_TRUE(conn.handshake());
    std::string head =
        method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
    if (method == "POST") {
      head += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
              "\r\n";
    }
    EXPECT_TRUE(conn.send(head + "\r\n" + body));
    const auto raw = conn.read_response();
    if (!raw)
      return "";
    const ParsedResponse response = parse_response(*raw);
    EXPECT_EQ(response.status, 200) << method << " " << path << ": " << response.body;
    return response.body;
  }

  std::ostringstream log_sink;
  log::Logger logger{log::Level::warn, log::Format::text, &log_sink};
  SslCtxPtr ctx = make_client_ctx({});
  std::unique_ptr<app::SchedulerHost> host;
};

// (namespace, pod, container index, device uuid) → (memory MiB, cores).
using Held = std::map<std::tuple<std::string, std::string, std::string, std::string>,
                      std::pair<double, double>>;

// What /allocations' `*-devices-allocated` annotations say each pod holds
// (`uuid,type,memory,cores:` per device, `;` per container), summed per
// container and device.
Held held_by_annotations(const std::string& report) {
  rapidjson::Document doc;
  doc.Parse(report.c_str());
  Held held;
  for (const auto& pod : doc["pods"].GetArray()) {
    for (const auto& a : pod["annotations"].GetObject()) {
      const std::string key = a.name.GetString();
      if (!key.ends_with("-devices-allocated"))
        continue;
      std::istringstream containers(a.value.GetString());
      std::string segment;
      for (int c = 0; std::getline(containers, segment, ';'); ++c) {
        std::istringstream devices(segment);
        std::string device;
        while (std::getline(devices, device, ':')) {
          if (device.empty())
            continue;
          std::istringstream fields(device);
          std::string uuid, type, memory, cores;
          std::getline(fields, uuid, ',');
          std::getline(fields, type, ',');
          std::getline(fields, memory, ',');
          std::getline(fields, cores, ',');
          auto& [m, k] = held[{pod["namespace"].GetString(), pod["name"].GetString(),
                               std::to_string(c), uuid}];
          m += std::stod(memory);
          k += std::stod(cores);
        }
      }
    }
  }
  return held;
}

const char* kBinds[] = {
    R"({"PodName":"demo-infer","PodNamespace":"ml","PodUID":"5e7c2d4a-0000-4000-8000-000000000001","Node":"gpu-a100-1"})",
    R"({"PodName":"demo-rocm","PodNamespace":"rocm","PodUID":"5e7c2d4a-0000-4000-8000-000000000002","Node":"gpu-mi300x-0"})",
    R"({"PodName":"demo-mig","PodNamespace":"ml","PodUID":"5e7c2d4a-0000-4000-8000-000000000003","Node":"gpu-a100-mig-0"})",
};

TEST_F(DemoHost, EveryPodsMetricEqualsWhatAllocationsSaysItHolds) {
  for (const char* bind : kBinds)
    EXPECT_EQ(call("POST", "/bind", bind), R"({"Error":""})");
  const Held expected = held_by_annotations(call("GET", "/allocations"));
  const auto scrape = hami::testing::parse_exposition(call("GET", "/metrics"));

  Held reported;
  for (const auto* s : scrape.find("hami_vgpu_memory_allocated_bytes")) {
    reported[{s->labels.at("namespace"), s->labels.at("pod"), s->labels.at("container_index"),
              s->labels.at("device_uuid")}]
        .first = s->value / kMiB;
  }
  // The demo's MIG pod holds two 2g.10gb instances of one A100.
  const auto mig =
      expected.find({"ml", "demo-mig", "0", "GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001"});
  ASSERT_NE(mig, expected.end());
  EXPECT_EQ(mig->second.first, 19712);
  // One series per container and device the annotations name, no more.
  EXPECT_EQ(reported.size(), expected.size());
  for (const auto& [key, value] : expected) {
    const auto& [ns, pod, container, uuid] = key;
    const auto got = reported.find(key);
    ASSERT_NE(got, reported.end()) << ns << "/" << pod << " " << uuid;
    EXPECT_EQ(got->second.first, value.first) << ns << "/" << pod << " " << uuid;
    if (uuid.starts_with("GPU-")) {  // NVIDIA cores are percent, as the metric reports them
      EXPECT_EQ(scrape.value("hami_vgpu_core_allocated_ratio", {{"namespace", ns},
                                                                {"pod", pod},
                                                                {"container_index", container},
                                                                {"device_uuid", uuid}}),
                value.second)
          << ns << "/" << pod << " " << uuid;
    }
  }
  EXPECT_EQ(log_sink.str().find("problem"), std::string::npos) << log_sink.str();
  EXPECT_EQ(scrape.find("hami_scheduler_metrics_errors_total").size(), 0u);
}

}  // namespace
}  // namespace hami::test
