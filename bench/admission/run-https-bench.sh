#!/usr/bin/env bash
# The webhook over HTTPS, side by side with the nginx ceiling of the shared
# reference benchmark (../shared/bench, see its README), in one run:
#   keep-alive at 16 connections (requests/s), keep-alive at 1 connection
#   (p50 latency), Connection: close at 16 connections (server CPU per
#   request, i.e. the TLS handshake), and each server's peak RSS.
# Both servers are pinned to CPU 0 (wrk runs on CPU 1), TLS 1.3 with the same
# EC certificate, session tickets and cache off. Loopback only.
#
# usage: bench/admission/run-https-bench.sh BUILD_DIR [SHARED_BENCH_DIR]
#   BUILD_DIR         a Release build with hami-scheduler, nvidia.so, amd.so,
#                     vgpu.so (e.g. build/release)
#   SHARED_BENCH_DIR  default: ../shared/bench next to the repository
# env: DURATION (s per run, default 5), REPEATS (default 3), PORT_NGINX
#      (8443), PORT_OURS (9443), BENCH_BUILD (/tmp/hami-bench)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: $0 BUILD_DIR [SHARED_BENCH_DIR]}" && pwd)
SHARED=$(cd "${2:-$REPO/../shared/bench}" && pwd)
DURATION=${DURATION:-5} REPEATS=${REPEATS:-3}
PORT_NGINX=${PORT_NGINX:-8443} PORT_OURS=${PORT_OURS:-9443}
export BENCH_BUILD=${BENCH_BUILD:-/tmp/hami-bench}
BODY=$SHARED/data/admission-gpu.json
OUT=$BENCH_BUILD/admission-https
mkdir -p "$OUT"

"$SHARED/tls/gen-cert.sh" ec >/dev/null
cat > "$OUT/hami.yaml" <<CONF
listen: 127.0.0.1:$PORT_OURS
tls:
  certFile: $BENCH_BUILD/tls/cert.pem
  keyFile: $BENCH_BUILD/tls/key.pem
  sessionResumption: false
# The extender listener is not measured: any free loopback port.
extender:
  listen: 127.0.0.1:0
server:
  maxThreads: 64
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
log:
  level: warn
CONF

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

measure() {  # label pid url path
  DURATION=$DURATION REPEATS=$REPEATS "$SHARED/run-webhook.sh" -l "$1" -p "$2" -c "16 1" \
    -m keepalive "$3" "$4" "$BODY"
  DURATION=$DURATION REPEATS=$REPEATS "$SHARED/run-webhook.sh" -l "$1" -p "$2" -c 16 \
    -m close "$3" "$4" "$BODY"
}

nginx_pid=$(SERVER_CPUS=0 "$SHARED/peers/nginx/start-nginx.sh" "$PORT_NGINX")
pids+=("$nginx_pid")
measure nginx "$nginx_pid" "https://127.0.0.1:$PORT_NGINX" /webhook | tee "$OUT/nginx.txt"
kill "$nginx_pid"

taskset -c 0 "$BUILD/bin/hami-scheduler" --config "$OUT/hami.yaml" > "$OUT/hami.log" 2>&1 &
ours_pid=$!
pids+=("$ours_pid")
for _ in $(seq 50); do
  curl -sk -o /dev/null "https://127.0.0.1:$PORT_OURS/healthz" && break
  kill -0 "$ours_pid" 2>/dev/null || { cat "$OUT/hami.log" >&2; exit 1; }
  sleep 0.1
done
measure hami "$ours_pid" "https://127.0.0.1:$PORT_OURS" /mutate-pod | tee "$OUT/hami.txt"

# Ratios from the MEDIAN lines: rps (keep-alive, 16), p50 (keep-alive, 1),
# CPU µs per request (close, 16), peak RSS.
field() { grep "^MEDIAN $1 " "$OUT/$1.txt" | grep " $2 " | grep "c=$3 " | sed -E "s|.* $4=([0-9.]+).*|\1|"; }
rss() { grep "^RSS" "$OUT/$1.txt" | tail -1 | sed -E 's/.*VmHWM=([0-9]+).*/\1/'; }
awk -v hr="$(field hami keepalive 16 rps)" -v nr="$(field nginx keepalive 16 rps)" \
    -v hp="$(field hami keepalive 1 p50)" -v np="$(field nginx keepalive 1 p50)" \
    -v hc="$(field hami close 16 cpu_us/req)" -v nc="$(field nginx close 16 cpu_us/req)" \
    -v hm="$(rss hami)" -v nm="$(rss nginx)" 'BEGIN {
  printf "RATIO keep-alive c=16 rps: hami %s / nginx %s = %.1f%% (target >= 50%%)\n", hr, nr, 100 * hr / nr
  printf "RATIO keep-alive c=1 p50: hami %sms / nginx %sms = %.2fx (target <= 1.5x)\n", hp, np, hp / np
  printf "RATIO close c=16 cpu/request: hami %sus / nginx %sus = %.2fx (target <= 1.2x)\n", hc, nc, hc / nc
  printf "PEAK RSS: hami %d kB, nginx %d kB (target <= 20 MB)\n", hm, nm }'
