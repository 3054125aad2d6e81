#!/usr/bin/env bash
# Long campaigns of the model-based scheduling test (tests/model): many
# seeds, more operations per seed, over the file backend, the Kubernetes
# backend or both. Prints each backend's line and the distinct failures,
# then the total as "N seeds, M operations, K failures". Exit status 1 when
# any seed failed.
#
#   scripts/model-campaign.sh [-b file|kube|both] [-s SEEDS] [-o OPS]
#                             [-f FIRST_SEED] [-t SECONDS] [-a AVOID] [-B BUILD_DIR]
#
# -a takes HAMI_MODEL_AVOID's list (rebind,unfiltered-bind,binding-after,refilter)
# to leave those scenarios out while a failure in one of them is being fixed. Replay one failure with the HAMI_MODEL_SEED and
# HAMI_MODEL_OPS it prints; HAMI_MODEL_SHRINK=1 shortens it.
set -euo pipefail

backend=both
seeds=2000
ops=2000
first=1
seconds=3600
avoid=""
build="build/dev"
while getopts "b:s:o:f:t:a:B:h" opt; do
  case "$opt" in
    b) backend="$OPTARG" ;;
    s) seeds="$OPTARG" ;;
    o) ops="$OPTARG" ;;
    f) first="$OPTARG" ;;
    t) seconds="$OPTARG" ;;
    a) avoid="$OPTARG" ;;
    B) build="$OPTARG" ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
binary="$root/$build/tests/model/model_tests"
if [[ ! -x "$binary" ]]; then
  echo "model-campaign: $binary not built (cmake --build $build --target model_tests)" >&2
  exit 2
fi

case "$backend" in
  file) filters=("ModelFile.*") ;;
  kube) filters=("ModelKube.*") ;;
  both) filters=("ModelFile.*" "ModelKube.*") ;;
  *) echo "model-campaign: -b file|kube|both" >&2; exit 2 ;;
esac

total_seeds=0
total_ops=0
total_failures=0
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for filter in "${filters[@]}"; do
  HAMI_MODEL_FIRST_SEED="$first" HAMI_MODEL_SEEDS="$seeds" HAMI_MODEL_OPS="$ops" \
    HAMI_MODEL_SECONDS="$seconds" HAMI_MODEL_AVOID="$avoid" \
    "$binary" --gtest_filter="$filter" >"$log" 2>&1 || true
  summary="$(grep -E '^model\[' "$log" | tail -1 || true)"
  if [[ -z "$summary" ]]; then
    echo "model-campaign: $filter printed no summary; its output:" >&2
    cat "$log" >&2
    exit 2
  fi
  echo "$summary"
  # The distinct failures listed under the summary line.
  sed -n '/^model\[/,/^\[/p' "$log" | grep -E '^  [0-9]+x ' || true
  read -r s o f < <(sed -E 's/^model\[[a-z]+\]: ([0-9]+) seeds, ([0-9]+) operations, ([0-9]+) failures.*/\1 \2 \3/' <<<"$summary")
  total_seeds=$((total_seeds + s))
  total_ops=$((total_ops + o))
  total_failures=$((total_failures + f))
done
echo "$total_seeds seeds, $total_ops operations, $total_failures failures"
[[ "$total_failures" -eq 0 ]]
