// The webhook over real HTTPS: the host's server on 127.0.0.1:0 with a
// self-signed certificate, admission routes registered, and the system
// curl posting reviews to it.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "admission/admission_service.hpp"
#include "admission/routes.hpp"
#include "plugin_set.hpp"
#include "test_data.hpp"
#include "test_support.hpp"

namespace hami::admission {
namespace {

using testing::data_file;
using testing::PluginSet;
using testing::trimmed;

constexpr size_t kBodyLimit = 64 * 1024;

std::string golden_path(const std::string& file) {
  return std::string(HAMI_ADMISSION_TEST_DATA) + "/../golden/" + file;
}

class HttpsAdmission : public ::testing::Test {
 protected:
  void SetUp() override {
    plugins.vendors().admission("vgpu", "{}");
    service.emplace(plugins.devices(), plugins.policy(), nullptr, AdmissionSettings{});
    auto router = std::make_shared<server::Router>();
    register_admission_routes(*router, *service, kBodyLimit);
    srv = std::make_unique<test::RunningServer>(router);
  }

  struct CurlReply {
    int exit_code;
    int status;
    std::string body;
  };

  // POSTs the file (or literal data) with curl -k and splits status and body.
  CurlReply post(const std::string& path, const std::string& data_arg,
                 const std::string& content_type = "application/json") const {
    const auto r =
        test::run_command("curl -sS -k --max-time 10 -X POST -H " +
                          test::shell_quote("Content-Type: " + content_type) + " --data-binary " +
                          test::shell_quote(data_arg) + " -w '\\n%{http_code}' " +
                          test::shell_quote(srv->url(path)) + " 2>&1");
    const size_t cut = r.output.rfind('\n');
    if (cut == std::string::npos)
      return {r.exit_code, 0, r.output};
    return {r.exit_code, std::atoi(r.output.c_str() + cut + 1), r.output.substr(0, cut)};
  }

  PluginSet plugins;
  std::optional<AdmissionService> service;
  std::unique_ptr<test::RunningServer> srv;
};

TEST_F(HttpsAdmission, CurlGetsTheGoldenReplyOnBothPaths) {
  const std::string expected = trimmed(data_file("../golden/gpu-no-annotations.reply.json"));
  for (const std::string path : {"/mutate-pod", "/webhook?timeout=10s"}) {
    const CurlReply r = post(path, "@" + golden_path("gpu-no-annotations.request.json"));
    EXPECT_EQ(r.exit_code, 0) << r.body;
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body, expected) << path;
  }
  const CurlReply seed =
      post("/mutate-pod", "@" + std::string(HAMI_ADMISSION_TEST_DATA) + "/admission-gpu.json");
  EXPECT_EQ(seed.status, 200);
  EXPECT_EQ(seed.body, trimmed(data_file("admission-response.json")));
}

TEST_F(HttpsAdmission, BadRequestsAreAnsweredAndTheServerKeepsServing) {
  const CurlReply garbage = post("/mutate-pod", "{oops");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_EQ(
      garbage.body,
      R"x({"error":"request body is not valid JSON: Missing a name for object member. (at byte 1)"})x");

  const CurlReply plain = post("/webhook", "@" + golden_path("no-gpu.request.json"), "text/plain");
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(plain.body,
            R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":)"
            R"({"uid":"3f1c2a9e-7b4d-4e8a-9c61-0d2b5e7f8a10","allowed":false,"status":)"
            R"({"metadata":{},"message":"Content-Type \"text/plain\" is not application/json",)"
            R"("code":400}}})");

  // The server answers 413 before reading the body, then drains what curl
  // still sends before closing, so curl always reads the answer.
  const CurlReply large = post("/mutate-pod", std::string(kBodyLimit + 1, 'x'));
  EXPECT_EQ(large.status, 413);

  const auto get = test::run_command("curl -sS -k --max-time 10 -o /dev/null -w '%{http_code}' " +
                                     test::shell_quote(srv->url("/mutate-pod")));
  EXPECT_EQ(get.output, "405");

  const CurlReply good = post("/mutate-pod", "@" + golden_path("amd-gpu.request.json"));
  EXPECT_EQ(good.status, 200);
  EXPECT_EQ(good.body, trimmed(data_file("../golden/amd-gpu.reply.json")));
}

}  // namespace
}  // namespace hami::admission
