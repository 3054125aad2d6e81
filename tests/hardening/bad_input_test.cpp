// The bad-input corpus (tests/hardening/bad_input, plus generated deep
// nesting and a 10 MB body) posted to every route of the running
// hami-scheduler binary (config/dev.yaml: file cluster, real plugins): each
// request gets a well-formed reply — a status line, a Content-Length that
// matches the body, JSON when it says JSON, never a 5xx — and the host keeps
// serving after all of them.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "child_process.hpp"
#include "test_support.hpp"

namespace hami::test {
namespace {

namespace fs = std::filesystem;

struct Input {
  std::string name;
  std::string body;
};

std::vector<Input> corpus() {
  std::vector<Input> inputs;
  for (const auto& entry : fs::directory_iterator(HAMI_BAD_INPUT_DIR)) {
    if (entry.path().filename() == "README.md")
      continue;
    std::ifstream in(entry.path(), std::ios::binary);
    inputs.push_back(
        {entry.path().filename().string(), std::string(std::istreambuf_iterator<char>(in), {})});
  }
  inputs.push_back({"deep-arrays", std::string(100000, '[')});
  std::string deep_objects;
  for (int i = 0; i < 50000; ++i)
    deep_objects += R"({"a":)";
  inputs.push_back({"deep-objects", deep_objects});
  std::string big = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","x":")";
  big.append(10u * 1000u * 1000u, 'x');
  big += "\"}";
  inputs.push_back({"10MB", std::move(big)});
  return inputs;
}

struct Route {
  std::string method;
  std::string path;
};

const std::vector<Route> kRoutes = {
    {"POST", "/mutate-pod"}, {"POST", "/webhook"}, {"POST", "/filter"},      {"POST", "/schedule"},
    {"POST", "/prioritize"}, {"POST", "/bind"},    {"GET", "/healthz"},      {"GET", "/readyz"},
    {"GET", "/status"},      {"GET", "/metrics"},  {"GET", "/allocations"},  {"POST", "/nope"},
    {"GET", "/nope"},        {"PUT", "/filter"},   {"DELETE", "/mutate-pod"}};

bool is_json(const std::string& text) {
  rapidjson::Document doc;
  // Iterative: the deep-nesting inputs would overflow a recursive parse.
  doc.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(text.data(),
                                                                                    text.size());
  return !doc.HasParseError();
}

std::string address_of(const std::string& line) {
  const auto at = line.find("address=");
  if (at == std::string::npos)
    return {};
  const auto end = line.find(' ', at);
  return line.substr(at + 8, end - at - 8);
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    child = std::make_unique<ChildProcess>(std::vector<std::string>{
        HAMI_SCHEDULER_BINARY, "--config", std::string(HAMI_SOURCE_DIR) + "/config/dev.yaml",
        "--plugin-dir", HAMI_PLUGIN_DIR, "--listen", "127.0.0.1:0"});
    const auto line = child->wait_for_stderr_line("msg=listening", std::chrono::seconds(60));
    ASSERT_TRUE(line.has_value()) << child->err();
    const std::string address = address_of(*line);
    port = static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
    ctx = make_client_ctx({});
    // The host logs every refused request; its stderr pipe must keep being
    // read or the host blocks on a full pipe.
    pump = std::thread([this] {
      while (!stop_pump.load())
        (void)child->wait_for_stderr_line("\x01never printed", std::chrono::milliseconds(100));
    });
  }

  void TearDown() override {
    stop_pump.store(true);
    if (pump.joinable())
      pump.join();
  }

  // The host's stderr so far; only once the pump stopped.
  std::string host_log() {
    TearDown();
    return child->err();
  }

  // One request on its own connection; nullopt when no reply came.
  std::optional<ParsedResponse> exchange(const Route& route, const std::string& body) {
    TlsConnection conn(ctx.get(), port);
    if (!conn.handshake())
      return std::nullopt;
    const std::string head = route.method + " " + route.path +
                             " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                             "Content-Length: " +
                             std::to_string(body.size()) + "\r\n\r\n";
    // A send cut short (the server answered early) still leaves the answer
    // to read.
    (void)conn.send(head + body);
    const auto raw = conn.read_response();
    if (!raw)
      return std::nullopt;
    return parse_response(*raw);
  }

  int healthz() {
    const auto r = exchange({"GET", "/healthz"}, "");
    return r ? r->status : 0;
  }

  std::unique_ptr<ChildProcess> child;
  std::thread pump;
  std::atomic<bool> stop_pump{false};
  uint16_t port = 0;
  SslCtxPtr ctx;
};

TEST_F(BadInput, EveryRouteAnswersEveryBadInputAndTheHostKeepsServing) {
  const std::regex status_line(R"(HTTP/1\.1 [1-5][0-9][0-9] [A-Za-z][A-Za-z \-]*)");
  int requests = 0;
  for (const Input& input : corpus()) {
    const bool valid_json = is_json(input.body);
    for (const Route& route : kRoutes) {
      SCOPED_TRACE(input.name + " → " + route.method + " " + route.path);
      const auto r = exchange(route, input.body);
      ++requests;
      ASSERT_TRUE(r.has_value()) << "no reply; host stderr:\n" << host_log();
      EXPECT_TRUE(std::regex_match(r->status_line, status_line)) << r->status_line;
      EXPECT_GE(r->status, 200);
      EXPECT_LT(r->status, 500) << r->body;
      EXPECT_EQ(r->header("content-length"), std::to_string(r->body.size()));
      if (r->header("content-type") == "application/json") {
        EXPECT_TRUE(is_json(r->body)) << r->body;
      }
      // A 200 for input that is not even JSON must carry the protocol's
      // error form: the extender's Error or a refused review.
      if (r->status == 200 && !valid_json && route.method == "POST") {
        const bool extender_error = r->body.find(R"("Error":")") != std::string::npos &&
                                    r->body.find(R"("Error":"")") == std::string::npos;
        const bool refused_review = r->body.find(R"("allowed":false)") != std::string::npos;
        EXPECT_TRUE(extender_error || refused_review) << r->body;
      }
    }
    ASSERT_EQ(healthz(), 200) << "after " << input.name << "; host stderr:\n" << host_log();
  }
  EXPECT_GE(requests, 15 * static_cast<int>(kRoutes.size()));

  // Real work still succeeds.
  std::ifstream in(std::string(HAMI_SOURCE_DIR) + "/tests/admission/golden/amd-gpu.request.json");
  const std::string review(std::istreambuf_iterator<char>(in), {});
  const auto r = exchange({"POST", "/mutate-pod"}, review);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find(R"("allowed":true)"), std::string::npos) << r->body;
}

}  // namespace
}  // namespace hami::test
