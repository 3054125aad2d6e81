// What ExtenderService reports about each verb: the observer calls that
// feed the scheduler metrics, and the log lines operators read.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <sstream>
#include <string>
#include <vector>

#include "extender/extender_service.hpp"
#include "log/logger.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;

const std::string kGpuPod = pod_json("ml", "train", "uid-train",
                                     {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "3000"}}});
const std::string kHugePod =
    pod_json("ml", "huge", "uid-huge", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "90000"}}});
const std::string kCpuPod = pod_json("ml", "web", "uid-web", {{{"cpu", "1"}}});

struct FullNodes {
  size_t cached = 0;
  size_t parsed = 0;
  size_t entries = 0;
  size_t bytes = 0;
  bool operator==(const FullNodes&) const = default;
};

struct Filtered {
  std::string error;
  bool passthrough = false;
  size_t fit = 0;
  size_t candidates = 0;
};

struct Observed : ::testing::Test {
  SchedulingEnv env{"kind: List\nitems:\n" + nvidia_node("gpu-a", 2, 8000) +
                    "- kind: Node\n  metadata: {name: cpu-a}\n"};
  std::ostringstream log_text;
  log::Logger logger{log::Level::debug, log::Format::text, &log_text};
  std::vector<Filtered> filtered;
  std::vector<std::string> bound;
  std::vector<FullNodes> full_nodes;
  extender::ExtenderService service{
      *env.scheduler, &logger,
      extender::ExtenderObserver{
          [this](const scheduling::FilterOutcome& o, size_t candidates) {
            filtered.push_back({o.error, o.passthrough, o.fit.size(), candidates});
          },
          [this](std::string_view error) { bound.emplace_back(error); },
          [this](size_t cached, size_t parsed, size_t entries, size_t bytes) {
            full_nodes.push_back({cached, parsed, entries, bytes});
          }}};

  std::string filter(const std::string& pod) {
    return service.filter(R"({"Pod":)" + pod + R"(,"Nodes":null,"NodeNames":["gpu-a","cpu-a"]})")
        .body;
  }
  void add_pod(const std::string& json) {
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    env.cluster->upsert(doc);
  }
};

TEST_F(Observed, FilterReportsOutcomeAndCandidates) {
  filter(kGpuPod);
  filter(kHugePod);
  filter(kCpuPod);
  service.filter(R"({"Pod":null})");
  ASSERT_EQ(filtered.size(), 4U);
  EXPECT_EQ(filtered[0].error, "");
  EXPECT_EQ(filtered[0].fit, 1U);
  EXPECT_EQ(filtered[0].candidates, 2U);
  EXPECT_EQ(filtered[1].fit, 0U);
  EXPECT_EQ(filtered[1].candidates, 2U);
  EXPECT_TRUE(filtered[2].passthrough);
  EXPECT_EQ(filtered[3].error, "extender args missing pod");
  EXPECT_EQ(filtered[3].candidates, 0U);
}

TEST_F(Observed, FullNodesCallsReportCachedAndParsedNodes) {
  // One node large enough for the cache, one too small for it.
  const std::string large = R"({"metadata":{"name":"gpu-a","labels":{"note":")" +
                            std::string(extender::NodeObjectCache::kKeyBytes, 'n') + R"("}}})";
  const std::string body = R"({"Pod":)" + kGpuPod + R"(,"Nodes":{"items":[)" + large +
                           R"(,{"metadata":{"name":"cpu-a"}}]}})";
  const size_t cost = extender::NodeObjectCache::cost_of(large.size());
  service.filter(body);
  service.filter(body);
  service.prioritize(body);
  filter(kGpuPod);  // NodeNames: nothing to report
  // The filters' log lines: nothing cached the first time, one node the second.
  const std::string lines = log_text.str();
  const size_t second = lines.find("cached_nodes=1");
  EXPECT_NE(lines.find("cached_nodes=0"), std::string::npos) << lines;
  EXPECT_NE(second, std::string::npos) << lines;
  EXPECT_LT(lines.find("cached_nodes=0"), second);
  EXPECT_EQ(full_nodes,
            (std::vector<FullNodes>{{0, 2, 1, cost}, {1, 1, 1, cost}, {1, 1, 1, cost}}));
}

TEST_F(Observed, FilterLogLinesNameThePodAndDuration) {
  filter(kGpuPod);
  const std::string line = log_text.str();
  EXPECT_NE(line.find("msg=filtered"), std::string::npos) << line;
  EXPECT_NE(line.find("pod=ml/train"), std::string::npos) << line;
  EXPECT_NE(line.find("uid=uid-train"), std::string::npos) << line;
  EXPECT_NE(line.find("candidates=2"), std::string::npos) << line;
  EXPECT_NE(line.find("feasible=1"), std::string::npos) << line;
  EXPECT_NE(line.find("duration_ms="), std::string::npos) << line;
}

TEST_F(Observed, FilterFailuresAreLoggedAtInfo) {
  logger.set_level(log::Level::info);
  filter(kGpuPod);
  EXPECT_EQ(log_text.str(), "");
  service.filter(R"({"Pod":null})");
  EXPECT_NE(log_text.str().find("msg=\"filter failed\""), std::string::npos) << log_text.str();
  EXPECT_NE(log_text.str().find("error=\"extender args missing pod\""), std::string::npos)
      << log_text.str();
}

TEST_F(Observed, BindReportsSuccessAndErrors) {
  add_pod(kGpuPod);
  service.bind(R"({"PodName":"train","PodNamespace":"ml","PodUID":"uid-train","Node":"gpu-a"})");
  service.bind(R"({"PodName":"ghost","PodNamespace":"ml","Node":"gpu-a"})");
  ASSERT_EQ(bound.size(), 2U);
  EXPECT_EQ(bound[0], "");
  EXPECT_EQ(bound[1], "pod \"ghost\" not found");
  const std::string text = log_text.str();
  EXPECT_NE(text.find("msg=bound pod=ml/train uid=uid-train node=gpu-a duration_ms="),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("msg=\"bind failed\" pod=ml/ghost uid=\"\" node=gpu-a duration_ms="),
            std::string::npos)
      << text;
}

TEST(MillisecondsText, KeepsMicrosecondPrecision) {
  EXPECT_EQ(log::milliseconds_text(std::chrono::microseconds(412)), "0.412");
  EXPECT_EQ(log::milliseconds_text(std::chrono::milliseconds(12)), "12.000");
  EXPECT_EQ(log::milliseconds_text(std::chrono::microseconds(3001)), "3.001");
}

}  // namespace
