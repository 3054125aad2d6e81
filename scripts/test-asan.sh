#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer and
# warnings as errors (the `asan` preset's flags) and runs the whole ctest
# suite under them; any sanitizer report fails its test (halt_on_error,
# abort_on_error, leak detection on). Prints how long the build and the
# tests took.
#
#   scripts/test-asan.sh            # build/asan, like `cmake --preset asan`
#   HAMI_ASAN_BUILD_DIR=build-x scripts/test-asan.sh
#   HAMI_ASAN_CTEST_ARGS="-LE long" scripts/test-asan.sh   # extra ctest arguments
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${HAMI_ASAN_BUILD_DIR:-build/asan}"
jobs="${HAMI_JOBS:-2}"

bash scripts/deps.sh

start=$(date +%s)
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DHAMI_SANITIZE=ON -DHAMI_WERROR=ON
cmake --build "$build_dir" -j"$jobs"
built=$(date +%s)

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
# shellcheck disable=SC2086 # word splitting of the extra arguments is wanted
ctest --test-dir "$build_dir" --output-on-failure --timeout 600 -j"$jobs" ${HAMI_ASAN_CTEST_ARGS:-} ||
  status=$?
done_at=$(date +%s)

echo "asan: build $((built - start)) s, tests $((done_at - built)) s, total $((done_at - start)) s"
exit "$status"
