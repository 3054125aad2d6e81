// What the fake API server was asked about Events, one line per request:
// "<method> <path> <status>" and the body on the next line, so a test
// compares whole request sequences; and the Events a test reports.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster_state.hpp"
#include "fake_apiserver.hpp"

namespace hami::kube::testing {

inline std::vector<std::string> event_requests(const hami::testing::FakeApiServer& server) {
  std::vector<std::string> out;
  for (const auto& r : server.requests()) {
    if (r.path.find("/events") == std::string::npos)
      continue;
    std::string line = r.method + " " + r.path + " " + std::to_string(r.status);
    if (r.method == "PATCH")
      line += " " + r.content_type;
    out.push_back(std::move(line));
    out.push_back(r.body);
  }
  return out;
}

// How many Event writes (creates and patches) the server was asked for.
inline size_t event_writes(const hami::testing::FakeApiServer& server) {
  size_t n = 0;
  for (const auto& r : server.requests()) {
    if (r.path.find("/events") != std::string::npos && (r.method == "POST" || r.method == "PATCH"))
      ++n;
  }
  return n;
}

inline cluster::Event unschedulable(const std::string& pod, const std::string& message) {
  cluster::Event e;
  e.kind = "Pod";
  e.namespace_ = "ml";
  e.name = pod;
  e.uid = "uid-" + pod;
  e.type = "Warning";
  e.reason = "FilteringFailed";
  e.message = message;
  return e;
}

}  // namespace hami::kube::testing
