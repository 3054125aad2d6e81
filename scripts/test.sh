#!/usr/bin/env bash
# The test command: builds everything with AddressSanitizer +
# UndefinedBehaviorSanitizer and warnings as errors (the `asan` preset,
# build/asan) and runs the whole ctest suite under them; any sanitizer
# report fails its test. The CI entry point (.ci/run); ctest's summary is
# the last thing printed. scripts/test-dev.sh runs the same suite on a plain
# Debug build (build/dev), faster to build while working.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
cmake --preset asan -DHAMI_WERROR=ON
cmake --build --preset asan -j2
ctest --preset asan -j2 --timeout 600
