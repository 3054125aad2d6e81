// Small Kubernetes objects for the fake API server's tests.
#pragma once

#include <string>

#include "test_client.hpp"

namespace hami::testing::test {

inline std::string pod(const std::string& ns, const std::string& name, const std::string& node = "",
                       const std::string& app = "web") {
  Json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", app}}}}},
            {"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "busybox"}}})}}},
            {"status", {{"phase", "Pending"}}}};
  if (!node.empty()) {
    p["spec"]["nodeName"] = node;
  }
  return p.dump();
}

inline std::string node(const std::string& name) {
  Json n = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", name}, {"annotations", {{"hami.io/node-nvidia-register", "x"}}}}},
      {"status", {{"capacity", {{"nvidia.com/gpu", "4"}}}}}};
  return n.dump();
}

}  // namespace hami::testing::test
