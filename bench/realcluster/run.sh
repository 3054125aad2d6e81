#!/usr/bin/env bash
# Scheduling throughput as a cluster sees it: the real kube-scheduler (as the
# chart configures it) placing a GPU workload through hami-scheduler's
# extender, in allocateAt filter and bind, beside the same kube-scheduler
# placing plain pods without an extender (the ceiling), on the loopback
# control plane of tests/realcluster.
#
#   bash bench/realcluster/run.sh [NODES [PODS [MODES]]]
#       NODES  bench nodes, 8 GPUs each, a tenth AMD (default 1000)
#       PODS   pods of mixed shapes, a tenth AMD (default 5000)
#       MODES  comma-separated: ceiling, filter, bind (default all three)
#
# Each mode: the pods are created as fast as the API server takes them;
# the figures (pods/s from the first create to the last bound pod,
# kube-scheduler's scheduler_pod_scheduling_sli_duration_seconds p50/p99,
# extender calls and p99, binds refused on a node lock, the host's CPU
# seconds per 1000 pods and peak RSS, Events and API requests per pod) are
# printed and appended as JSON lines to bench/realcluster/results.jsonl
# (HAMI_BENCH_OUT overrides).
# After each GPU mode every stored pod is checked: no device over capacity,
# /allocations equal to the stored pods. Needs what tests/realcluster needs.
set -euo pipefail
cd "$(dirname "$0")/../.."
export HAMI_BENCH_THROUGHPUT=1
export HAMI_BENCH_NODES=${1:-1000} HAMI_BENCH_PODS=${2:-5000} HAMI_BENCH_MODES=${3:-ceiling,filter,bind}
export HAMI_BENCH_OUT=${HAMI_BENCH_OUT:-$PWD/bench/realcluster/results.jsonl}
exec bash tests/realcluster/run.sh -run TestThroughputBenchmark -timeout 3h
