#!/usr/bin/env bash
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 20)
#
# Builds every libFuzzer target (cmake/HamiFuzz.cmake) with clang-14 and
# ASan/UBSan, then runs each one for SECONDS_PER_TARGET seconds on a copy of
# its seed corpus (the repository's corpus is never modified). Exits non-zero
# when any target crashes, leaks, times out or runs out of memory, printing
# the input that did it and the command that reproduces it.
#
# Environment:
#   HAMI_FUZZ_BUILD_DIR   build folder (default build/fuzz)
#   HAMI_FUZZ_JOBS        parallel compile jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

seconds="${1:-20}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET]  (a positive integer, got '$seconds')" >&2
  exit 2
fi
build_dir="${HAMI_FUZZ_BUILD_DIR:-build/fuzz}"
case "$build_dir" in /*) ;; *) build_dir="$repo/$build_dir" ;; esac
jobs="${HAMI_FUZZ_JOBS:-2}"

# --- toolchain: clang-14 and its libFuzzer/sanitizer runtimes ---------------
packages=(clang-14 libclang-rt-14-dev)
missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fuzz.sh: installing ${missing[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "fuzz.sh: missing packages (${missing[*]}) and not root; install them and retry" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# The libraries the project itself builds against.
bash scripts/deps.sh

# --- build -------------------------------------------------------------------
# -O1 without NDEBUG: fast enough to fuzz, and assertions stay armed.
CC=clang-14 CXX=clang++-14 cmake -S "$repo" -B "$build_dir" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DHAMI_BUILD_FUZZ=ON -DHAMI_BUILD_TESTS=ON -DHAMI_WERROR=ON
cmake --build "$build_dir" -j"$jobs" --target hami_fuzz_all
build_seconds=$SECONDS

manifest="$build_dir/fuzz-targets.txt"
if [ ! -s "$manifest" ]; then
  echo "fuzz.sh: $manifest lists no fuzz targets" >&2
  exit 2
fi

# --- run -----------------------------------------------------------------------
# Corpus copies and logs are scratch; findings go to the build folder so they
# outlive this script.
work=$(mktemp -d "${TMPDIR:-/tmp}/hami-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
findings="$build_dir/fuzz-findings"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

passed=0
failed=0
summary=()
while read -r binary corpus; do
  [ -n "$binary" ] || continue
  name=$(basename "$binary")
  echo "=== $name: ${seconds}s on a copy of ${corpus#"$repo"/}"
  seeds="$work/$name/corpus"
  mkdir -p "$seeds" "$findings/$name"
  cp -R "$corpus/." "$seeds/"
  log="$work/$name/log"
  rc=0
  # The outer timeout only guards against a fuzzer that never stops (it
  # checks -max_total_time between inputs; -timeout bounds one input).
  timeout --kill-after=10 $((seconds + 120)) \
    "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$findings/$name/" "$seeds" </dev/null >"$log" 2>&1 || rc=$?
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)
  stats=$(sed -nE 's/^#([0-9]+)[[:space:]]+DONE[[:space:]]+cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+).*/\1 runs, cov \2, ft \3, corpus \4/p' \
    <<<"$done_line")
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    summary+=("fuzz: $name ok (${stats:-no stats})")
    echo "$name: ok (${stats:-no stats})"
    continue
  fi
  failed=$((failed + 1))
  # libFuzzer names the input it stopped on: "Test unit written to <path>".
  input=$(sed -nE 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -n 1)
  echo "$name: FAILED (exit $rc); last 60 lines of its log:" >&2
  tail -n 60 "$log" >&2
  if [ -n "$input" ] && [ -f "$input" ]; then
    echo "$name: crashing input: $input ($(stat -c %s "$input") bytes)" >&2
    echo "$name: reproduce: $binary $input" >&2
    # CI keeps logs, not build folders: small inputs travel in the log.
    if [ "$(stat -c %s "$input")" -le 16384 ]; then
      echo "$name: input as base64 (base64 -d > crash):" >&2
      base64 "$input" >&2
    fi
    summary+=("fuzz: $name FAILED (exit $rc) input $input")
  else
    echo "$name: no input was written (exit $rc); rerun: $binary -max_total_time=$seconds $corpus" >&2
    summary+=("fuzz: $name FAILED (exit $rc) no input written")
  fi
done <"$manifest"

echo
echo "fuzz: setup and build ${build_seconds}s, fuzzing $((SECONDS - build_seconds))s"
printf '%s\n' "${summary[@]}"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
