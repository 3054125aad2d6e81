// The whole host against the fake API server, for the end-to-end tests:
// the fake server, a kubeconfig naming it, the host and an HTTPS client of
// its listeners; the AdmissionReview the API server sends for a pod, and
// the patch of its reply decoded.
#pragma once

#include <Poco/Base64Decoder.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "app/scheduler_host.hpp"
#include "kube_env.hpp"
#include "test_support.hpp"

namespace hami::e2e {

inline std::string decode_base64(const std::string& text) {
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  std::ostringstream out;
  out << decoder.rdbuf();
  return out.str();
}

// A CREATE review of `pod` in namespace `ns`.
inline json admission_review(const json& pod, const std::string& uid, const std::string& ns) {
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", uid},
            {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
            {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
            {"namespace", ns},
            {"operation", "CREATE"},
            {"object", pod}}}};
}

struct HostFixture : ::testing::Test {
  // Starts the host on the fake server's objects applied so far.
  // `adjust`, when given, changes the test config first (other plugins).
  void start_host(const std::function<void(config::HostConfig&)>& adjust = {}) {
    kubeconfig = write_kubeconfig(dir.path(), fake.url());
    config::HostConfig config = host_config(kubeconfig);
    if (adjust)
      adjust(config);
    host = std::make_unique<app::SchedulerHost>(config, logger);
    host->start();
  }

  // A request on `port` (the webhook or the extender listener).
  test::ParsedResponse call(uint16_t port, const std::string& method, const std::string& path,
                            const std::string& body = "") {
    return test::json_request(ctx.get(), port, method, path, body);
  }

  hami::testing::FakeApiServer fake;
  TempFolder dir;
  std::filesystem::path kubeconfig;
  std::ostringstream log_sink;
  log::Logger logger{log::Level::info, log::Format::text, &log_sink};
  test::SslCtxPtr ctx = test::make_client_ctx({});
  std::unique_ptr<app::SchedulerHost> host;
};

}  // namespace hami::e2e
