// A FakeApiServer plus KubernetesClusterState instances talking to it over
// real sockets, and builders of the objects the tests put in the server.
#pragma once

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "fake_apiserver.hpp"
#include "kube/api_client.hpp"
#include "kube/kube_cluster.hpp"
#include "log/logger.hpp"

namespace hami::kube::testing {

inline std::shared_ptr<ApiClient> client_for(const std::string& url) {
  ApiConfig config;
  config.server = url;
  config.origin = "test";
  config.qps = 0;
  config.request_timeout = std::chrono::seconds(5);
  config.max_retries = 3;
  return std::make_shared<ApiClient>(std::move(config));
}

inline KubeClusterOptions fast_options() {
  KubeClusterOptions o;
  o.component = "hami-scheduler";
  o.instance = "test-host";
  o.list_page_size = 2;
  o.watch_timeout = std::chrono::seconds(30);
  o.backoff_initial = std::chrono::milliseconds(20);
  o.backoff_max = std::chrono::milliseconds(200);
  if (std::getenv("KUBE_CLUSTER_TEST_LOG") != nullptr) {
    static const log::Logger logger(log::Level::debug);
    o.logger = &logger;
  }
  return o;
}

inline std::string node_object(const std::string& name, const std::string& annotations = "{}") {
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name + R"(","annotations":)" +
         annotations +
         R"(},"status":{"allocatable":{"nvidia.com/gpu":"4"},"capacity":{"nvidia.com/gpu":"4"}}})";
}

inline std::string pod_object(const std::string& ns, const std::string& name,
                              const std::string& uid, const std::string& node = "",
                              const std::string& annotations = "{}") {
  std::string spec = R"({"schedulerName":"hami-scheduler","containers":[{"name":"main",)"
                     R"("image":"cuda","env":[{"name":"BIG","value":"x"}],)"
                     R"("resources":{"limits":{"nvidia.com/gpu":"1"}}}])";
  if (!node.empty())
    spec += R"(,"nodeName":")" + node + "\"";
  spec += "}";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
         ns + R"(","uid":")" + uid + R"(","annotations":)" + annotations + R"(},"spec":)" + spec +
         R"(,"status":{"phase":"Pending"}})";
}

inline std::string quota_object(const std::string& ns, const std::string& name,
                                const std::string& gpumem) {
  return R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":")" + name +
         R"(","namespace":")" + ns + R"("},"spec":{"hard":{"limits.nvidia.com/gpumem":")" + gpumem +
         R"("}}})";
}

inline std::string namespace_object(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + name +
         R"(","labels":{"team":")" + name + R"("}}})";
}

// Requests (recorded by the server) matching method and exact path.
inline std::vector<hami::testing::RecordedRequest> requests_to(
    const hami::testing::FakeApiServer& server, const std::string& method,
    const std::string& path) {
  std::vector<hami::testing::RecordedRequest> out;
  for (auto& r : server.requests()) {
    if (r.method == method && r.path == path)
      out.push_back(std::move(r));
  }
  return out;
}

}  // namespace hami::kube::testing
