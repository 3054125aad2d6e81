// ApiClient against the fake API server over real sockets: verbs and
// headers, Status errors, the retry policy, token rotation, rate limit,
// timeouts and watch streams.
#include "kube/api_client.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "fake_apiserver.hpp"
#include "temp_dir.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using hami::testing::FakeApiServer;
using hami::testing::FakeApiServerOptions;
using std::chrono::milliseconds;

std::string node_json(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
         R"(","annotations":{"a":"1"}},"spec":{}})";
}

std::string pod_json(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"default"},"spec":{"containers":[{"name":"c","image":"x"}]}})";
}

rapidjson::Document parse(std::string_view text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

// Records every wait instead of sleeping.
struct RecordingSleeper {
  std::shared_ptr<std::mutex> mu = std::make_shared<std::mutex>();
  std::shared_ptr<std::vector<milliseconds>> waits = std::make_shared<std::vector<milliseconds>>();
  ApiClient::Sleeper sleeper() const {
    return [mu = mu, waits = waits](milliseconds d) {
      std::lock_guard lock(*mu);
      waits->push_back(d);
    };
  }
  std::vector<milliseconds> seen() const {
    std::lock_guard lock(*mu);
    return *waits;
  }
};

ApiConfig config_for(const FakeApiServer& server, std::string token = "tok") {
  ApiConfig config;
  config.server = server.url();
  config.origin = "test";
  if (!token.empty())
    config.token = std::make_shared<StaticTokenSource>(std::move(token));
  config.qps = 0;  // unlimited unless a test says otherwise
  config.request_timeout = 5s;
  return config;
}

ApiError error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "expected ApiError";
  return ApiError(-1, "", "");
}

class ApiClientTest : public ::testing::Test {
 protected:
  ApiClientTest() : server_(FakeApiServerOptions{false, "tok", 10000, {}}) {}
  FakeApiServer server_;
  RecordingSleeper sleeper_;
};

TEST_F(ApiClientTest, GetPostPatchPutRemove) {
  server_.apply(node_json("gpu-1"));
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());

  const ApiResponse got = client.get("/api/v1/nodes/gpu-1");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.content_type, "application/json");
  EXPECT_STREQ(parse(got.body)["metadata"]["name"].GetString(), "gpu-1");

  const ApiResponse created = client.post("/api/v1/namespaces/default/pods", pod_json("p1"));
  EXPECT_EQ(created.status, 201);
  const std::string rv = parse(created.body)["metadata"]["resourceVersion"].GetString();

  const ApiResponse patched = client.patch("/api/v1/namespaces/default/pods/p1", PatchType::merge,
                                           R"({"metadata":{"annotations":{"hami.io/x":"v"}}})");
  EXPECT_STREQ(parse(patched.body)["metadata"]["annotations"]["hami.io/x"].GetString(), "v");

  const ApiResponse json_patched =
      client.patch("/api/v1/nodes/gpu-1", PatchType::json,
                   R"([{"op":"replace","path":"/metadata/annotations/a","value":"2"}])");
  EXPECT_STREQ(parse(json_patched.body)["metadata"]["annotations"]["a"].GetString(), "2");

  // A PUT with the stale resourceVersion of the create: the patch bumped it.
  rapidjson::Document stale = parse(created.body);
  EXPECT_STREQ(stale["metadata"]["resourceVersion"].GetString(), rv.c_str());
  const ApiError conflict =
      error_of([&] { client.put("/api/v1/namespaces/default/pods/p1", created.body); });
  EXPECT_EQ(conflict.status(), 409);
  EXPECT_EQ(conflict.reason(), "Conflict");
  EXPECT_EQ(conflict.message(),
            "Operation cannot be fulfilled on pods \"p1\": the object has been modified; please "
            "apply your changes to the latest version and try again");

  const ApiResponse fresh = client.get("/api/v1/namespaces/default/pods/p1");
  EXPECT_EQ(client.put("/api/v1/namespaces/default/pods/p1", fresh.body).status, 200);
  EXPECT_EQ(client.remove("/api/v1/namespaces/default/pods/p1").status, 200);
  const ApiError gone = error_of([&] { client.get("/api/v1/namespaces/default/pods/p1"); });
  EXPECT_EQ(gone.status(), 404);
  EXPECT_EQ(gone.reason(), "NotFound");
  EXPECT_EQ(gone.message(), "pods \"p1\" not found");

  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 9u);
  for (const auto& r : requests)
    EXPECT_EQ(r.authorization, "Bearer tok") << r.method << " " << r.path;
  EXPECT_EQ(requests[1].method, "POST");
  EXPECT_EQ(requests[1].content_type, "application/json");
  EXPECT_EQ(requests[1].body, pod_json("p1"));
  EXPECT_EQ(requests[2].content_type, "application/merge-patch+json");
  EXPECT_EQ(requests[3].content_type, "application/json-patch+json");
  EXPECT_EQ(requests[4].method, "PUT");
  EXPECT_EQ(requests[7].method, "DELETE");
  EXPECT_EQ(client.stats().requests, 9u);
  EXPECT_EQ(client.stats().retries, 0u);
  EXPECT_TRUE(sleeper_.seen().empty());
}

TEST_F(ApiClientTest, QueryStringReachesTheServer) {
  server_.apply(node_json("gpu-1"));
  server_.apply(node_json("gpu-2"));
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  const ApiResponse list =
      client.get("/api/v1/nodes?fieldSelector=" + query_escape("metadata.name=gpu-2"));
  const auto doc = parse(list.body);
  ASSERT_EQ(doc["items"].Size(), 1u);
  EXPECT_STREQ(doc["items"][0]["metadata"]["name"].GetString(), "gpu-2");
  EXPECT_EQ(server_.requests().back().query, "fieldSelector=metadata.name%3Dgpu-2");
}

TEST_F(ApiClientTest, TooManyRequestsIsRetriedAfterRetryAfter) {
  server_.apply(node_json("gpu-1"));
  server_.fail_next("GET", "/api/v1/nodes", 429, 2, 3);
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  EXPECT_EQ(client.get("/api/v1/nodes/gpu-1").status, 200);
  EXPECT_EQ(sleeper_.seen(), (std::vector<milliseconds>{3000ms, 3000ms}));
  EXPECT_EQ(client.stats().requests, 3u);
  EXPECT_EQ(client.stats().retries, 2u);
}

TEST_F(ApiClientTest, RetryAfterIsCappedAtTenSeconds) {
  server_.apply(node_json("gpu-1"));
  server_.fail_next("GET", "/api/v1/nodes", 503, 1, 120);
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  EXPECT_EQ(client.get("/api/v1/nodes/gpu-1").status, 200);
  EXPECT_EQ(sleeper_.seen(), (std::vector<milliseconds>{10000ms}));
}

TEST_F(ApiClientTest, ServerErrorWithoutRetryAfterIsNotRetried) {
  server_.apply(node_json("gpu-1"));
  server_.fail_next("GET", "/api/v1/nodes", 500, 1);
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  const ApiError e = error_of([&] { client.get("/api/v1/nodes/gpu-1"); });
  EXPECT_EQ(e.status(), 500);
  EXPECT_EQ(e.reason(), "InternalError");
  EXPECT_EQ(e.message(), "Internal error occurred: injected fault");
  EXPECT_EQ(e.retry_after(), std::nullopt);
  EXPECT_EQ(client.stats().requests, 1u);
  EXPECT_TRUE(sleeper_.seen().empty());
  // The next request is unaffected.
  EXPECT_EQ(client.get("/api/v1/nodes/gpu-1").status, 200);
}

TEST_F(ApiClientTest, RetriesStopAtMaxRetriesAttempts) {
  server_.apply(node_json("gpu-1"));
  server_.fail_next("GET", "/api/v1/nodes", 429, 5, 1);
  ApiConfig config = config_for(server_);
  config.max_retries = 3;
  ApiClient client(config, nullptr, sleeper_.sleeper());
  const ApiError e = error_of([&] { client.get("/api/v1/nodes/gpu-1"); });
  EXPECT_EQ(e.status(), 429);
  EXPECT_EQ(e.reason(), "TooManyRequests");
  EXPECT_EQ(e.retry_after(), std::chrono::seconds(1));
  EXPECT_EQ(client.stats().requests, 3u);
  EXPECT_EQ(sleeper_.seen(), (std::vector<milliseconds>{1000ms, 1000ms}));
}

TEST_F(ApiClientTest, PostIsRetriedOnRetryAfterToo) {
  server_.fail_next("POST", "/api/v1/namespaces/default/pods", 429, 1, 1);
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  EXPECT_EQ(client.post("/api/v1/namespaces/default/pods", pod_json("p")).status, 201);
  EXPECT_EQ(server_.objects("Pod").size(), 1u);
}

TEST_F(ApiClientTest, UnauthorizedReReadsTheRotatedTokenFile) {
  testing::TempDir dir;
  const auto token_file = dir.write("token", "tok\n");
  server_.apply(node_json("gpu-1"));
  ApiConfig config = config_for(server_, "");
  config.token = std::make_shared<FileTokenSource>(token_file, std::chrono::hours(1));
  ApiClient client(config, nullptr, sleeper_.sleeper());
  EXPECT_EQ(client.get("/api/v1/nodes/gpu-1").status, 200);

  server_.set_token("rotated");
  dir.write("token", "rotated\n");
  server_.clear_requests();
  EXPECT_EQ(client.get("/api/v1/nodes/gpu-1").status, 200);
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].status, 401);
  EXPECT_EQ(requests[0].authorization, "Bearer tok");
  EXPECT_EQ(requests[1].status, 200);
  EXPECT_EQ(requests[1].authorization, "Bearer rotated");
  EXPECT_EQ(client.stats().retries, 1u);
  EXPECT_TRUE(sleeper_.seen().empty());
}

TEST_F(ApiClientTest, UnauthorizedTwiceIsReported) {
  ApiClient client(config_for(server_, "wrong"), nullptr, sleeper_.sleeper());
  const ApiError e = error_of([&] { client.get("/api/v1/nodes"); });
  EXPECT_EQ(e.status(), 401);
  EXPECT_EQ(e.reason(), "Unauthorized");
  EXPECT_EQ(client.stats().requests, 2u);
}

TEST_F(ApiClientTest, RateLimitIsHonoured) {
  server_.apply(node_json("gpu-1"));
  ApiConfig config = config_for(server_);
  config.qps = 10;
  config.burst = 2;
  ApiClient client(config, nullptr, sleeper_.sleeper());
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 6; ++i)
    client.get("/api/v1/nodes/gpu-1");
  const auto elapsed =
      std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
  // The recording sleeper does not sleep, so real time only advances by the
  // exchanges themselves: each wait is its slot minus that.
  const std::vector<milliseconds> expected{100ms, 200ms, 300ms, 400ms};
  const auto seen = sleeper_.seen();
  ASSERT_EQ(seen.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_LE(seen[i], expected[i]);
    EXPECT_GE(seen[i], expected[i] - elapsed - 1ms);
  }
  EXPECT_EQ(client.stats().throttle_waits, 4u);
}

TEST_F(ApiClientTest, RequestTimeout) {
  server_.apply(node_json("gpu-1"));
  server_.set_latency(3s);
  ApiConfig config = config_for(server_);
  config.request_timeout = 300ms;
  ApiClient client(config, nullptr, sleeper_.sleeper());
  const auto start = std::chrono::steady_clock::now();
  const ApiError e = error_of([&] { client.get("/api/v1/nodes/gpu-1"); });
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(e.status(), 0);
  EXPECT_EQ(e.message(), "GET " + server_.url() + "/api/v1/nodes/gpu-1: timed out after 300 ms");
  server_.set_latency(0ms);
}

TEST_F(ApiClientTest, RefusedConnectionIsStatusZero) {
  server_.set_refusing(true);
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  const ApiError e = error_of([&] { client.get("/api/v1/nodes"); });
  EXPECT_EQ(e.status(), 0);
  EXPECT_EQ(e.reason(), "");
  EXPECT_EQ(e.message().rfind("GET " + server_.url() + "/api/v1/nodes: ", 0), 0u) << e.message();
  server_.set_refusing(false);
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
}

TEST_F(ApiClientTest, ConcurrentRequests) {
  server_.apply(node_json("gpu-1"));
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        if (client.get("/api/v1/nodes/gpu-1").status == 200)
          ++ok;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(ok.load(), 40);
  EXPECT_EQ(client.stats().requests, 40u);
}

TEST_F(ApiClientTest, InvalidServerUrl) {
  ApiConfig config = config_for(server_);
  config.server = "ftp://h";
  EXPECT_THROW(ApiClient(config, nullptr, sleeper_.sleeper()), ApiConfigError);
}

// --- watch -------------------------------------------------------------------

TEST_F(ApiClientTest, WatchDeliversEveryLineInOrder) {
  const std::string rv = server_.apply(pod_json("p0"));
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  std::vector<std::string> lines;
  std::jthread writer([&] {
    if (!server_.wait_open_watches(1, 5s))
      return;
    for (int i = 1; i <= 5; ++i)
      server_.apply(pod_json("p" + std::to_string(i)));
  });
  client.watch(
      "/api/v1/pods?watch=1&resourceVersion=" + rv,
      [&](std::string_view line) {
        lines.emplace_back(line);
        return lines.size() < 5;
      },
      std::stop_token{});
  ASSERT_EQ(lines.size(), 5u);
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto doc = parse(lines[i]);
    EXPECT_STREQ(doc["type"].GetString(), "ADDED");
    EXPECT_EQ(std::string(doc["object"]["metadata"]["name"].GetString()),
              "p" + std::to_string(i + 1));
  }
}

TEST_F(ApiClientTest, WatchEndsNormallyAtTimeoutSeconds) {
  const std::string rv = server_.apply(pod_json("p0"));
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  int lines = 0;
  const auto start = std::chrono::steady_clock::now();
  client.watch(
      "/api/v1/pods?watch=1&timeoutSeconds=1&resourceVersion=" + rv,
      [&](std::string_view) {
        ++lines;
        return true;
      },
      std::stop_token{});
  EXPECT_EQ(lines, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST_F(ApiClientTest, WatchStopReturnsWithinOneSecond) {
  const std::string rv = server_.apply(pod_json("p0"));
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  std::stop_source stop;
  std::atomic<bool> returned{false};
  std::atomic<bool> threw{false};
  std::thread watcher([&] {
    try {
      client.watch(
          "/api/v1/pods?watch=1&resourceVersion=" + rv, [](std::string_view) { return true; },
          stop.get_token());
    } catch (...) {
      threw = true;
    }
    returned = true;
  });
  // No ASSERT before the join: the watcher thread must be joined.
  EXPECT_TRUE(server_.wait_open_watches(1, 5s));
  const auto start = std::chrono::steady_clock::now();
  stop.request_stop();
  watcher.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_TRUE(returned.load());
  EXPECT_FALSE(threw.load());
}

TEST_F(ApiClientTest, WatchAlreadyStoppedDoesNotConnect) {
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  std::stop_source stop;
  stop.request_stop();
  client.watch(
      "/api/v1/pods?watch=1", [](std::string_view) { return true; }, stop.get_token());
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(ApiClientTest, DroppedWatchThrowsStatusZero) {
  const std::string rv = server_.apply(pod_json("p0"));
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  std::vector<std::string> lines;
  std::jthread faults([&] {
    if (!server_.wait_open_watches(1, 5s))
      return;
    server_.apply(pod_json("p1"));
    // Let the event reach the client before the cut.
    for (int i = 0; i < 500 && server_.object("Pod", "default", "p1") == std::nullopt; ++i)
      std::this_thread::sleep_for(1ms);
    server_.drop_watches();
  });
  const ApiError e = error_of([&] {
    client.watch(
        "/api/v1/pods?watch=1&resourceVersion=" + rv,
        [&](std::string_view line) {
          lines.emplace_back(line);
          return true;
        },
        std::stop_token{});
  });
  EXPECT_EQ(e.status(), 0);
  EXPECT_NE(e.message().find("stream cut"), std::string::npos) << e.message();
  EXPECT_LE(lines.size(), 1u);
}

TEST_F(ApiClientTest, WatchRefusedWithGoneThrowsTheStatus) {
  server_.apply(pod_json("p0"));
  server_.fail_next("GET", "/api/v1/pods", 410);
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  const ApiError e = error_of([&] {
    client.watch(
        "/api/v1/pods?watch=1&resourceVersion=1", [](std::string_view) { return true; },
        std::stop_token{});
  });
  EXPECT_EQ(e.status(), 410);
  EXPECT_EQ(e.reason(), "Expired");
}

TEST_F(ApiClientTest, WatchFromCompactedVersionGetsTheErrorEvent) {
  const std::string rv = server_.apply(pod_json("p0"));
  server_.apply(pod_json("p1"));
  server_.compact();
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  std::vector<std::string> lines;
  client.watch(
      "/api/v1/pods?watch=1&resourceVersion=" + rv,
      [&](std::string_view line) {
        lines.emplace_back(line);
        return true;
      },
      std::stop_token{});
  ASSERT_EQ(lines.size(), 1u);
  const auto doc = parse(lines[0]);
  EXPECT_STREQ(doc["type"].GetString(), "ERROR");
  EXPECT_EQ(doc["object"]["code"].GetInt(), 410);
  EXPECT_STREQ(doc["object"]["reason"].GetString(), "Expired");
}

TEST_F(ApiClientTest, WatchOpenRetriesOnRetryAfterAndReauthenticates) {
  const std::string rv = server_.apply(pod_json("p0"));
  server_.fail_next("GET", "/api/v1/pods", 429, 1, 2);
  ApiClient client(config_for(server_), nullptr, sleeper_.sleeper());
  std::jthread writer([&] {
    if (server_.wait_open_watches(1, 5s))
      server_.apply(pod_json("p1"));
  });
  int lines = 0;
  std::stop_source stop;
  client.watch(
      "/api/v1/pods?watch=1&resourceVersion=" + rv,
      [&](std::string_view) {
        ++lines;
        return false;
      },
      stop.get_token());
  EXPECT_EQ(lines, 1);
  // A stoppable watch waits in slices of a second.
  EXPECT_EQ(sleeper_.seen(), (std::vector<milliseconds>{1000ms, 1000ms}));
}

TEST_F(ApiClientTest, WatchRetryWaitEndsAtStop) {
  server_.fail_next("GET", "/api/v1/pods", 503, 1, 10);
  std::stop_source stop;
  std::vector<milliseconds> waits;
  ApiClient client(config_for(server_), nullptr, [&](milliseconds d) {
    waits.push_back(d);
    if (waits.size() == 2)
      stop.request_stop();
  });
  client.watch(
      "/api/v1/pods?watch=1", [](std::string_view) { return true; }, stop.get_token());
  EXPECT_EQ(waits, (std::vector<milliseconds>{1000ms, 1000ms}));
  EXPECT_EQ(server_.requests().size(), 1u);
}

}  // namespace
}  // namespace hami::kube
