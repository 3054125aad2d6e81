// The outcome AdmissionService reports for every call (it feeds
// hami_scheduler_admission_decisions_total) and its decision log line.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "admission/admission_service.hpp"
#include "log/logger.hpp"
#include "plugin_set.hpp"

namespace hami::admission {
namespace {

using testing::PluginSet;

std::string review(std::string_view operation, std::string_view object) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-7",)"
         R"("kind":{"group":"","version":"v1","kind":"Pod"},"operation":")" +
         std::string(operation) + R"(","namespace":"ml","name":"p1","object":)" +
         std::string(object) + "}}";
}

constexpr std::string_view kGpuPod =
    R"({"metadata":{"name":"p1"},"spec":{"containers":[{"name":"c","resources":)"
    R"({"limits":{"nvidia.com/gpu":"1","nvidia.com/gpumem":"100"}}}]}})";

class Outcomes : public ::testing::Test {
 protected:
  void SetUp() override {
    plugins.vendors().admission("vgpu", "{}");
    AdmissionSettings settings;
    settings.on_outcome = [this](AdmissionOutcome o) { seen.push_back(o); };
    service.emplace(plugins.devices(), plugins.policy(), nullptr, std::move(settings), &logger);
  }

  PluginSet plugins;
  std::ostringstream log_text;
  log::Logger logger{log::Level::debug, log::Format::text, &log_text};
  std::vector<AdmissionOutcome> seen;
  std::optional<AdmissionService> service;
};

TEST_F(Outcomes, EveryCallReportsWhatWasDecided) {
  (void)service->handle("application/json", review("CREATE", kGpuPod));
  (void)service->handle("application/json", review("UPDATE", kGpuPod));
  (void)service->handle("application/json", review("CREATE", R"({"spec":{"containers":[]}})"));
  (void)service->handle("application/json", "{");
  (void)service->handle("text/plain", review("CREATE", kGpuPod));
  EXPECT_EQ(seen, (std::vector<AdmissionOutcome>{
                      AdmissionOutcome::allowed, AdmissionOutcome::skipped,
                      AdmissionOutcome::denied, AdmissionOutcome::error, AdmissionOutcome::error}));
}

TEST_F(Outcomes, DecisionLinesNameThePodAndDuration) {
  (void)service->handle("application/json", review("CREATE", kGpuPod));
  const std::string text = log_text.str();
  EXPECT_NE(text.find("msg=\"pod admitted\" namespace=ml pod=p1 uid=u-7 uses_vgpu=true"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("duration_ms="), std::string::npos) << text;

  log_text.str("");
  logger.set_level(log::Level::info);
  (void)service->handle("application/json", review("CREATE", R"({"spec":{"containers":[]}})"));
  EXPECT_NE(log_text.str().find("msg=\"pod denied\" namespace=ml pod=p1 uid=u-7"),
            std::string::npos)
      << log_text.str();
  EXPECT_NE(log_text.str().find("message=\"pod has no containers\""), std::string::npos)
      << log_text.str();
}

}  // namespace
}  // namespace hami::admission
