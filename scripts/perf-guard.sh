#!/usr/bin/env bash
# The performance guard: counts the instructions each hot path executes per
# call under callgrind, and compares them with the committed baseline
# (bench/guard/baseline.tsv). Instruction counts do not depend on what else
# the machine does: the same binary on the same input gives the same count,
# so a slowdown of a few per cent shows where wall-clock benchmarks on a
# shared machine move by tens of per cent.
#
# The hot paths and their inputs are in bench/guard/hot_paths.cpp (the
# `hot_paths` program of a build with HAMI_BUILD_BENCH=ON, e.g. the release
# preset). Only the calling thread's instructions between the two collection
# toggles are counted: setup and one warm-up call are not.
#
# usage: scripts/perf-guard.sh [--update] [CASE...]
#   --update  write the counts measured now as the new baseline (commit it
#             on its own, saying why the count moved)
#   CASE...   only these cases (default: every case of the baseline)
# Without HAMI_BUILD_DIR it builds hot_paths in the release preset's
# build/release first (configuring it with HAMI_BUILD_BENCH=ON).
# Environment: HAMI_BUILD_DIR (a build that has hot_paths; default
# build/release, built as above), PERF_GUARD_MARGIN
# (per cent a count may grow before the guard fails; default 3).
#
# Prints one line per case, then "perf-guard: N of M within P %". Exit 0
# when no count grew by more than the margin, 1 when one did, 2 when the
# guard could not measure (no valgrind, no hot_paths, a path that failed).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${HAMI_BUILD_DIR:-$repo/build/release}"
margin="${PERF_GUARD_MARGIN:-3}"
baseline="$repo/bench/guard/baseline.tsv"
program="$build/bench/guard/hot_paths"

update=false
if [ "${1:-}" = --update ]; then
  update=true
  shift
fi

if ! command -v valgrind >/dev/null 2>&1; then
  echo "perf-guard: valgrind is not installed (scripts/deps.sh installs it)" >&2
  exit 2
fi
if [ -z "${HAMI_BUILD_DIR:-}" ]; then
  # The release preset's build, with the guard's program added to it (CI's
  # release stage leaves the benchmarks out; this builds only hot_paths).
  (cd "$repo" && cmake --preset release -DHAMI_WERROR=ON -DHAMI_BUILD_BENCH=ON >/dev/null &&
    cmake --build --preset release -j2 --target hot_paths >/dev/null)
fi
if [ ! -x "$program" ]; then
  echo "perf-guard: $program is missing; build it in a build with HAMI_BUILD_BENCH=ON" \
    "(cmake --build DIR --target hot_paths)" >&2
  exit 2
fi

# The baseline: "case calls instructions-per-call" per line, # comments.
declare -A calls_of=() base_of=()
order=()
while read -r name calls per_call; do
  [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
  calls_of[$name]=$calls
  base_of[$name]=$per_call
  order+=("$name")
done <"$baseline"

selected=("$@")
[ ${#selected[@]} -eq 0 ] && selected=("${order[@]}")
for name in "${selected[@]}"; do
  if [ -z "${calls_of[$name]:-}" ]; then
    echo "perf-guard: no case '$name' in $baseline" >&2
    exit 2
  fi
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

declare -A now_of=()
grown=0
for name in "${selected[@]}"; do
  calls=${calls_of[$name]}
  out="$scratch/$name.out"
  # At most ten minutes a case: a path that hangs fails the guard.
  if ! timeout 600 valgrind --tool=callgrind --collect-atstart=no --separate-threads=yes \
    --callgrind-out-file="$out" "$program" "$name" "$calls" >"$scratch/$name.log" 2>&1; then
    cat "$scratch/$name.log" >&2
    echo "perf-guard: $name did not run to the end" >&2
    exit 2
  fi
  # Thread 1 is the calling thread.
  total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out-01")
  if [ -z "$total" ]; then
    echo "perf-guard: no instruction total in callgrind's output for $name" >&2
    exit 2
  fi
  per_call=$((total / calls))
  now_of[$name]=$per_call
  base=${base_of[$name]}
  # Change in hundredths of a per cent, integer arithmetic only.
  change=$(((per_call - base) * 10000 / base))
  sign=+
  if [ "$change" -lt 0 ]; then
    sign=-
    change=$((-change))
  fi
  verdict=ok
  if [ "$sign" = + ] && [ "$change" -gt $((margin * 100)) ]; then
    verdict="GREW more than $margin %"
    grown=$((grown + 1))
  elif [ "$sign" = - ] && [ "$change" -gt $((margin * 100)) ]; then
    verdict="fell more than $margin %: update the baseline (--update) in its own commit"
  fi
  printf '%-20s %6s calls  baseline %12s  now %12s  %s%d.%02d %%  %s\n' "$name" "$calls" \
    "$base" "$per_call" "$sign" $((change / 100)) $((change % 100)) "$verdict"
done

if $update; then
  {
    sed -n '/^#/p' "$baseline"
    for name in "${order[@]}"; do
      printf '%s\t%s\t%s\n' "$name" "${calls_of[$name]}" "${now_of[$name]:-${base_of[$name]}}"
    done
  } >"$scratch/baseline.tsv"
  cp "$scratch/baseline.tsv" "$baseline"
  echo "perf-guard: baseline written to $baseline"
  exit 0
fi

echo "perf-guard: $((${#selected[@]} - grown)) of ${#selected[@]} within $margin %"
[ "$grown" -eq 0 ]
