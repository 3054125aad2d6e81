// hami_build_info: HAMi's build metadata metric, one series with value 1.
// Labels as HAMi's: version, revision, build_date, go_version, compiler,
// platform. This is not a Go program, so go_version is empty (Prometheus
// treats an empty label as absent); compiler names the C++ compiler.
// Not wrapped with zone="vGPU", as in HAMi.
#pragma once

#include <string>

#include "observability/metrics_registry.hpp"

namespace hami::observability {

struct BuildInfo {
  std::string version;
  std::string revision;
  std::string build_date;  // RFC 3339, UTC
  std::string go_version;
  std::string compiler;  // e.g. "gcc 12.2.0"
  std::string platform;  // e.g. "linux/amd64"
};

// This binary's: the project version, the git revision and date at
// configure time ("unknown" when git was not available), the compiler and
// the target platform.
BuildInfo this_build();

// Registers hami_build_info with `info`.
void add_build_info(MetricsRegistry& registry, const BuildInfo& info);

}  // namespace hami::observability
