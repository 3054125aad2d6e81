#!/usr/bin/env bash
# Builds everything optimised (the `release` preset, build/release; the
# benchmarks are left out here to keep CI's time, `cmake --build --preset
# release` builds them) with warnings as errors and runs the whole test
# suite on it: timing-dependent behaviour shows up here first. CI runs it
# before scripts/test.sh (the ASan + UBSan suite).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
cmake --preset release -DHAMI_WERROR=ON -DHAMI_BUILD_BENCH=OFF
cmake --build --preset release -j2
ctest --preset release -j2 --timeout 600
