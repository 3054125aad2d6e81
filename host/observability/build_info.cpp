#include "observability/build_info.hpp"

#ifndef HAMI_OBSERVABILITY_VERSION
#error "HAMI_OBSERVABILITY_VERSION must be defined by the build"
#endif
#ifndef HAMI_OBSERVABILITY_REVISION
#error "HAMI_OBSERVABILITY_REVISION must be defined by the build"
#endif
#ifndef HAMI_OBSERVABILITY_BUILD_DATE
#error "HAMI_OBSERVABILITY_BUILD_DATE must be defined by the build"
#endif

namespace hami::observability {
namespace {

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

std::string platform() {
  std::string os = "unknown";
#if defined(__linux__)
  os = "linux";
#elif defined(__APPLE__)
  os = "darwin";
#endif
  std::string arch = "unknown";
#if defined(__x86_64__)
  arch = "amd64";
#elif defined(__aarch64__)
  arch = "arm64";
#elif defined(__powerpc64__)
  arch = "ppc64le";
#elif defined(__s390x__)
  arch = "s390x";
#endif
  return os + "/" + arch;
}

}  // namespace

BuildInfo this_build() {
  BuildInfo info;
  info.version = HAMI_OBSERVABILITY_VERSION;
  info.revision = HAMI_OBSERVABILITY_REVISION;
  info.build_date = HAMI_OBSERVABILITY_BUILD_DATE;
  info.compiler = compiler();
  info.platform = platform();
  return info;
}

void add_build_info(MetricsRegistry& registry, const BuildInfo& info) {
  registry
      .gauge("hami_build_info", "hami build metadata exposed as labels with a constant value of 1.",
             {"version", "revision", "build_date", "go_version", "compiler", "platform"})
      .labels({info.version, info.revision, info.build_date, info.go_version, info.compiler,
               info.platform})
      .set(1);
}

}  // namespace hami::observability
