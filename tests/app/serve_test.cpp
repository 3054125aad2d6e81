// The hami-scheduler binary serving: it listens on ephemeral ports (the
// webhook and extender listeners, or the one socket config/dev.yaml shares
// between them), answers over TLS, and on SIGTERM/SIGINT drains and exits 0.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "child_process.hpp"

namespace hami::test {
namespace {

const std::string kBinary = HAMI_SCHEDULER_BINARY;
const std::string kPluginDir = HAMI_PLUGIN_DIR;
const std::string kSourceDir = HAMI_SOURCE_DIR;
constexpr auto kStartBound = std::chrono::seconds(30);

// GET `url`, or POST `json` to it; returns the body, a space and the status.
std::string curl(const std::string& url, const std::string& json = {}) {
  std::string cmd = "curl -sk --max-time 10 -w ' %{http_code}' ";
  if (!json.empty()) {
    cmd += "-X POST -H 'Content-Type: application/json' --data-binary '" + json + "' ";
  }
  cmd += "'" + url + "' 2>&1";
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr)
    return out;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
    out.append(buf.data(), n);
  pclose(pipe);
  return out;
}

// "… address=127.0.0.1:40123 …" → "127.0.0.1:40123".
std::string address_of(const std::string& line) {
  const auto at = line.find("address=");
  if (at == std::string::npos)
    return {};
  const auto end = line.find(' ', at);
  return line.substr(at + 8, end - at - 8);
}

void serve_and_stop(int sig) {
  ChildProcess child({kBinary, "--config", kSourceDir + "/config/dev.yaml", "--plugin-dir",
                      kPluginDir, "--listen", "127.0.0.1:0"});
  const auto listening = child.wait_for_stderr_line("msg=listening", kStartBound);
  ASSERT_TRUE(listening.has_value()) << child.err();
  const std::string address = address_of(*listening);
  ASSERT_EQ(address.rfind("127.0.0.1:", 0), 0u) << *listening;
  EXPECT_NE(listening->find("tls=self-signed"), std::string::npos);
  // dev.yaml shares one socket between the listeners; --listen moved it.
  EXPECT_NE(listening->find(" listener=webhook+extender "), std::string::npos) << *listening;
  EXPECT_EQ(curl("https://" + address + "/healthz"), " 200");
  EXPECT_EQ(curl("https://" + address + "/status"), " 200");
  EXPECT_EQ(curl("https://" + address + "/readyz"), " 200");
  EXPECT_EQ(curl("https://" + address + "/nope"), "{\"error\":\"not found: /nope\"} 404");
  // The webhook and the extender are wired to the loaded plugins, and every
  // route of docs/demo-walkthrough.md answers on the one address.
  EXPECT_EQ(curl("https://" + address + "/filter", "{\"NodeNames\":[\"a\"]}"),
            "{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":null,"
            "\"FailedAndUnresolvableNodes\":null,\"Error\":\"extender args missing pod\"} 200");
  EXPECT_EQ(curl("https://" + address + "/prioritize", "{\"NodeNames\":[\"a\"]}"),
            "{\"error\":\"extender args missing pod\"} 400");
  EXPECT_EQ(curl("https://" + address + "/bind",
                 R"({"PodName":"ghost","PodNamespace":"ml","Node":"cpu-0"})"),
            "{\"Error\":\"pod \\\"ghost\\\" not found\"} 200");
  const std::string allocations = curl("https://" + address + "/allocations");
  EXPECT_EQ(allocations.substr(allocations.size() - 4), " 200") << allocations;
  EXPECT_NE(allocations.find("gpu-a100-0"), std::string::npos) << allocations;
  EXPECT_EQ(curl("https://" + address + "/mutate-pod", "{}"),
            "{\"error\":\"apiVersion is missing; expected admission.k8s.io/v1 or v1beta1\"} 400");

  child.signal(sig);
  EXPECT_EQ(child.wait(std::chrono::seconds(30)), 0) << child.err();
  EXPECT_NE(child.err().find("msg=\"shutting down\" grace_seconds=10"), std::string::npos)
      << child.err();
  EXPECT_NE(child.err().find("msg=stopped in_flight_finished=true"), std::string::npos)
      << child.err();
}

// "… address=127.0.0.1:40123 …" of the first stderr line containing `msg`.
std::string wait_for_address(ChildProcess& child, const std::string& msg) {
  const auto line = child.wait_for_stderr_line(msg, kStartBound);
  return line ? address_of(*line) : std::string{};
}

TEST(Serve, MetricsOnTheMainListenerAndThePlainHttpOne) {
  char tmpl[] = "/tmp/hami-metrics-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::filesystem::path dir(tmpl);
  std::ofstream(dir / "cfg.yaml") << "listen: 127.0.0.1:0\ntls: {selfSigned: true}\nplugins:\n"
                                     "  directory: "
                                  << kPluginDir
                                  << "\n  devices:\n    - {name: nvidia, library: nvidia.so}\n"
                                     "extender: {listen: 127.0.0.1:0}\n"
                                     "metrics: {listen: \"127.0.0.1:0\"}\n";
  ChildProcess child({kBinary, "--config", (dir / "cfg.yaml").string()});
  const std::string main_address = wait_for_address(child, "msg=listening");
  const std::string metrics_address = wait_for_address(child, "msg=\"metrics listening\"");
  ASSERT_FALSE(main_address.empty()) << child.err();
  ASSERT_FALSE(metrics_address.empty()) << child.err();

  EXPECT_EQ(curl("https://" + main_address + "/healthz"), " 200");
  const std::string scrape = curl("https://" + main_address + "/metrics");
  EXPECT_EQ(scrape.substr(scrape.size() - 4), " 200");
  EXPECT_NE(scrape.find("hami_build_info{"), std::string::npos) << scrape;
  // The router's observer feeds the request metrics.
  EXPECT_NE(scrape.find("hami_scheduler_http_requests_total{method=\"GET\",route=\"/healthz\","
                        "status_class=\"2xx\"} 1\n"),
            std::string::npos)
      << scrape;
  const std::string plain = curl("http://" + metrics_address + "/metrics");
  EXPECT_EQ(plain.substr(plain.size() - 4), " 200");
  EXPECT_NE(plain.find("hami_build_info{"), std::string::npos);

  child.signal(SIGTERM);
  EXPECT_EQ(child.wait(std::chrono::seconds(30)), 0) << child.err();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// Two listeners on ports of their own: one "listening" line each, and a
// route asked on the other listener is 404.
TEST(Serve, TwoListenersSplitTheRoutes) {
  char tmpl[] = "/tmp/hami-listeners-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::filesystem::path dir(tmpl);
  std::ofstream(dir / "cfg.yaml") << "listen: 127.0.0.1:0\ntls: {selfSigned: true}\n"
                                     "extender: {listen: 127.0.0.1:0}\nplugins:\n  directory: "
                                  << kPluginDir
                                  << "\n  devices:\n    - {name: nvidia, library: nvidia.so}\n"
                                     "  admission: {name: vgpu, library: vgpu.so}\n";
  ChildProcess child({kBinary, "--config", (dir / "cfg.yaml").string()});
  const auto webhook_line =
      child.wait_for_stderr_line("msg=listening listener=webhook ", kStartBound);
  const auto extender_line =
      child.wait_for_stderr_line("msg=listening listener=extender ", kStartBound);
  ASSERT_TRUE(webhook_line && extender_line) << child.err();
  const std::string webhook = "https://" + address_of(*webhook_line);
  const std::string extender = "https://" + address_of(*extender_line);
  ASSERT_NE(webhook, extender);
  EXPECT_NE(extender_line->find(" tls=self-signed "), std::string::npos) << *extender_line;

  EXPECT_EQ(curl(webhook + "/filter", "{}"), "{\"error\":\"not found: /filter\"} 404");
  EXPECT_EQ(curl(webhook + "/bind", "{}"), "{\"error\":\"not found: /bind\"} 404");
  EXPECT_EQ(curl(webhook + "/allocations"), "{\"error\":\"not found: /allocations\"} 404");
  EXPECT_EQ(curl(extender + "/mutate-pod", "{}"), "{\"error\":\"not found: /mutate-pod\"} 404");
  EXPECT_EQ(curl(extender + "/metrics"), "{\"error\":\"not found: /metrics\"} 404");
  EXPECT_EQ(curl(extender + "/filter", "{}"),
            "{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":null,"
            "\"FailedAndUnresolvableNodes\":null,\"Error\":\"extender args missing pod\"} 200");
  EXPECT_EQ(curl(webhook + "/mutate-pod", "{}"),
            "{\"error\":\"apiVersion is missing; expected admission.k8s.io/v1 or v1beta1\"} 400");
  EXPECT_EQ(curl(webhook + "/healthz"), " 200");
  EXPECT_EQ(curl(extender + "/healthz"), " 200");

  child.signal(SIGTERM);
  EXPECT_EQ(child.wait(std::chrono::seconds(30)), 0) << child.err();
  EXPECT_NE(child.err().find("msg=stopped in_flight_finished=true"), std::string::npos)
      << child.err();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// The webhook and the extender verbs feed the scheduler's event metrics.
TEST(Serve, DecisionsAreCountedInTheSchedulerMetrics) {
  ChildProcess child({kBinary, "--config", kSourceDir + "/config/dev.yaml", "--plugin-dir",
                      kPluginDir, "--listen", "127.0.0.1:0"});
  const std::string address = wait_for_address(child, "msg=listening");
  ASSERT_FALSE(address.empty()) << child.err();
  const std::string base = "https://" + address;

  const std::string review =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",)"
      R"("kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"ml",)"
      R"("object":{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":)"
      R"({"limits":{"nvidia.com/gpu":"1","nvidia.com/gpumem":"1000"}}}]}}}})";
  const std::string admitted = curl(base + "/mutate-pod", review);
  EXPECT_NE(admitted.find(R"("allowed":true)"), std::string::npos) << admitted;
  EXPECT_NE(curl(base + "/filter", R"({"Pod":null})").find("extender args missing pod"),
            std::string::npos);
  EXPECT_NE(curl(base + "/bind", R"({"PodName":"ghost","PodNamespace":"ml","Node":"n"})")
                .find(R"(not found)"),
            std::string::npos);

  const std::string scrape = curl(base + "/metrics");
  EXPECT_NE(scrape.find("hami_scheduler_admission_decisions_total{result=\"allowed\"} 1\n"),
            std::string::npos)
      << scrape;
  EXPECT_NE(scrape.find("hami_scheduler_filter_total{outcome=\"error\"} 1\n"), std::string::npos)
      << scrape;
  EXPECT_NE(scrape.find("hami_scheduler_bind_total{outcome=\"not_found\"} 1\n"), std::string::npos)
      << scrape;

  child.signal(SIGTERM);
  EXPECT_EQ(child.wait(std::chrono::seconds(30)), 0) << child.err();
}

TEST(Serve, SigtermDrainsAndExitsZero) {
  serve_and_stop(SIGTERM);
}

TEST(Serve, SigintDrainsAndExitsZero) {
  serve_and_stop(SIGINT);
}

TEST(Serve, VerboseLogsAtDebug) {
  ChildProcess child({kBinary, "--config", kSourceDir + "/config/dev.yaml", "--plugin-dir",
                      kPluginDir, "--listen", "127.0.0.1:0", "-v"});
  const auto listening = child.wait_for_stderr_line("msg=listening", kStartBound);
  ASSERT_TRUE(listening.has_value()) << child.err();
  // Requests are logged at debug level only.
  EXPECT_EQ(curl("https://" + address_of(*listening) + "/healthz"), " 200");
  const auto line = child.wait_for_stderr_line("msg=request", kStartBound);
  ASSERT_TRUE(line.has_value()) << child.err();
  EXPECT_NE(line->find(" debug msg=request method=GET route=/healthz status=200 peer=127.0.0.1:"),
            std::string::npos)
      << *line;
  EXPECT_NE(line->find(" duration_ms="), std::string::npos) << *line;
  child.signal(SIGTERM);
  EXPECT_EQ(child.wait(std::chrono::seconds(30)), 0);
}

TEST(Serve, RequestsAreNotLoggedAtInfo) {
  ChildProcess child({kBinary, "--config", kSourceDir + "/config/dev.yaml", "--plugin-dir",
                      kPluginDir, "--listen", "127.0.0.1:0"});
  const auto listening = child.wait_for_stderr_line("msg=listening", kStartBound);
  ASSERT_TRUE(listening.has_value()) << child.err();
  EXPECT_EQ(curl("https://" + address_of(*listening) + "/healthz"), " 200");
  child.signal(SIGTERM);
  EXPECT_EQ(child.wait(std::chrono::seconds(30)), 0);
  EXPECT_EQ(child.err().find("msg=request"), std::string::npos) << child.err();
}

}  // namespace
}  // namespace hami::test
