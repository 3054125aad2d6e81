#!/usr/bin/env bash
# Builds everything with warnings as errors and runs the whole test suite
# (the `dev` preset: Debug, build/dev). The CI entry point (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
cmake --preset dev -DHAMI_WERROR=ON
cmake --build --preset dev -j2
ctest --preset dev --output-on-failure
