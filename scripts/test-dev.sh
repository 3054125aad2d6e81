#!/usr/bin/env bash
# Builds everything with warnings as errors and runs the whole test suite
# (the `dev` preset: Debug, build/dev), without sanitizers. scripts/test.sh is
# the test command (the same suite under ASan + UBSan).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
cmake --preset dev -DHAMI_WERROR=ON
cmake --build --preset dev -j2
ctest --preset dev --output-on-failure
