#!/usr/bin/env bash
# Soak: mixed webhook / filter / bind load on the hami-scheduler binary
# (file cluster of config/demo-cluster.yaml, the real plugins) at 64
# keep-alive connections for a fixed time, over loopback only. Prints the
# requests, every kind of error (connect/read/write/timeout, non-200, and
# 200 answers carrying a protocol error) and the server's RSS after the
# warm-up and at the end. Exits non-zero on any error or when RSS grew by
# more than RSS_GROWTH_KB between the two samples.
#
# usage: bench/soak/run-soak.sh BUILD_DIR
#   BUILD_DIR   a build with bin/hami-scheduler and plugins/ (Release for
#               throughput numbers; any build for errors and RSS)
# env: DURATION (s, default 60), WARMUP (s, default 10), CONNECTIONS (64),
#      THREADS (2), RSS_GROWTH_KB (default 8192)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
DURATION=${DURATION:-60} WARMUP=${WARMUP:-10}
CONNECTIONS=${CONNECTIONS:-64} THREADS=${THREADS:-2} RSS_GROWTH_KB=${RSS_GROWTH_KB:-8192}
command -v wrk >/dev/null || { echo "run-soak.sh: wrk is not installed (Debian package wrk)" >&2; exit 1; }

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# One loopback socket serves the webhook and the extender routes (wrk mixes
# them on one address); --listen 127.0.0.1:0 below moves it to a free port.
cat > "$work/soak.yaml" <<CONF
listen: 127.0.0.1:8443
tls:
  selfSigned: true
extender:
  listen: 127.0.0.1:8443
server:
  maxThreads: $((CONNECTIONS + 8))
plugins:
  directory: $BUILD/plugins
  deviceConfigFile: $REPO/config/device-config.yaml
  devices:
    - name: nvidia
      library: nvidia.so
    - name: amd
      library: amd.so
  admission:
    name: vgpu
    library: vgpu.so
  scheduling:
    - name: hami-policies
      library: hami-policies.so
cluster:
  source: file
  file: $REPO/config/demo-cluster.yaml
log:
  level: info  # the "listening" line carries the port
CONF

mkdir "$work/data"
cat > "$work/data/review.json" <<'JSON'
{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":"ml","operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"demo-infer","namespace":"ml"},"spec":{"containers":[{"name":"inference","image":"nvcr.io/nvidia/tritonserver:24.05-py3","resources":{"limits":{"nvidia.com/gpu":"1","nvidia.com/gpumem":"8000","nvidia.com/gpucores":"30"}}}]}}}}
JSON
cat > "$work/data/filter.json" <<'JSON'
{"Pod":{"metadata":{"name":"demo-infer","namespace":"ml","uid":"5e7c2d4a-0000-4000-8000-000000000001"},"spec":{"schedulerName":"hami-scheduler","containers":[{"name":"inference","resources":{"limits":{"nvidia.com/gpu":"1","nvidia.com/gpumem":"8000","nvidia.com/gpucores":"30"}}}]}},"Nodes":null,"NodeNames":["gpu-a100-0","gpu-a100-1","gpu-t4-0","gpu-mi300x-0","cpu-0"]}
JSON
# The first bind places the pod; every later one is the retried bind of a
# pod already bound to that node, which must stay a no-op.
cat > "$work/data/bind.json" <<'JSON'
{"PodName":"demo-infer","PodNamespace":"ml","PodUID":"5e7c2d4a-0000-4000-8000-000000000001","Node":"gpu-a100-1"}
JSON

"$BUILD/bin/hami-scheduler" --config "$work/soak.yaml" --listen 127.0.0.1:0 2> "$work/server.log" &
server_pid=$!
address=""
for _ in $(seq 1 300); do
  address=$(sed -n 's/.*msg=listening.* address=\([^ ]*\).*/\1/p' "$work/server.log" | head -1)
  [ -n "$address" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$address" ] || { echo "run-soak.sh: the server did not start" >&2; cat "$work/server.log" >&2; exit 1; }
case "$address" in 127.0.0.1:*) ;; *) echo "run-soak.sh: not loopback: $address" >&2; exit 1 ;; esac

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status"; }

echo "soak: $CONNECTIONS connections, ${DURATION}s, server $address (pid $server_pid)"
rss_start=$(rss_kb)
SOAK_DATA="$work/data" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s \
  -s "$REPO/bench/soak/soak.lua" "https://$address" > "$work/wrk.out" 2>&1 &
wrk_pid=$!
sleep "$WARMUP"
rss_warm=$(rss_kb)
wait "$wrk_pid" || true
rss_end=$(rss_kb)
cat "$work/wrk.out"

result=$(grep '^RESULT' "$work/wrk.out" || true)
[ -n "$result" ] || { echo "run-soak.sh: no wrk result" >&2; exit 1; }
echo "RSS_KB start=$rss_start after_${WARMUP}s=$rss_warm end=$rss_end growth_after_warmup=$((rss_end - rss_warm))"
status=0
for field in err_connect err_read err_write err_status err_timeout err_protocol; do
  value=$(sed -n "s/.* $field=\([0-9]*\).*/\1/p" <<<"$result")
  if [ "${value:-1}" -ne 0 ]; then echo "soak: $field=$value" >&2; status=1; fi
done
if [ $((rss_end - rss_warm)) -gt "$RSS_GROWTH_KB" ]; then
  echo "soak: RSS grew by $((rss_end - rss_warm)) kB after the warm-up (limit $RSS_GROWTH_KB)" >&2
  status=1
fi
kill -0 "$server_pid" 2>/dev/null || { echo "soak: the server died" >&2; cat "$work/server.log" >&2; status=1; }
exit "$status"
