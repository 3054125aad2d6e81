#!/usr/bin/env bash
# The extender's /filter over HTTPS at one keep-alive connection (how
# kube-scheduler calls it), next to the nginx ceiling of the shared reference
# benchmark (../shared/bench), in one run:
#   - NodeNames mode: extender-1000-names.json, with the same 1,000 nodes
#     loaded into the file backend (p50 latency);
#   - full Nodes mode: the 5.4 MB extender-1000.json (p50 latency), against
#     nginx reading the same body before answering (its /filter location);
#   - our peak RSS (VmHWM) after serving the 5.4 MB body.
# Both servers are pinned to CPU 0 (wrk runs on CPU 1), TLS 1.3, the same EC
# certificate, session tickets and cache off. Loopback only.
#
# usage: bench/extender/run-https-bench.sh BUILD_DIR [SHARED_BENCH_DIR]
#   BUILD_DIR         a Release build (hami-scheduler, nvidia.so, amd.so,
#                     hami-policies.so), e.g. build/release
#   SHARED_BENCH_DIR  default: ../shared/bench next to the repository
# env: DURATION (s per run, default 5), REPEATS (default 3), PORT_NGINX
#      (8443), PORT_OURS (9443), BENCH_BUILD (/tmp/hami-bench),
#      NODE_CACHE_BYTES (server.extenderNodeCacheBytes, default 67108864;
#      0 parses every node of every full-Nodes call)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: $0 BUILD_DIR [SHARED_BENCH_DIR]}" && pwd)
SHARED=$(cd "${2:-$REPO/../shared/bench}" && pwd)
DURATION=${DURATION:-5} REPEATS=${REPEATS:-3} NODE_CACHE_BYTES=${NODE_CACHE_BYTES:-67108864}
PORT_NGINX=${PORT_NGINX:-8443} PORT_OURS=${PORT_OURS:-9443}
export BENCH_BUILD=${BENCH_BUILD:-/tmp/hami-bench}
NAMES=$SHARED/data/extender-1000-names.json
FULL=$BENCH_BUILD/data/extender-1000.json
OUT=$BENCH_BUILD/extender-https
mkdir -p "$OUT" "$BENCH_BUILD/data"

"$SHARED/tls/gen-cert.sh" ec >/dev/null
[[ -s "$FULL" ]] || python3 "$SHARED/data/gen_data.py" --out "$BENCH_BUILD/data" >/dev/null
# The cluster the NodeNames request names: the full request's Node objects.
python3 - "$FULL" "$OUT/cluster.json" <<'PY'
import json, sys
args = json.load(open(sys.argv[1]))
json.dump({"kind": "List", "items": [dict(n, kind="Node") for n in args["Nodes"]["items"]]},
          open(sys.argv[2], "w"))
PY

cat > "$OUT/hami.yaml" <<CONF
listen: 127.0.0.1:$PORT_OURS
tls:
  certFile: $BENCH_BUILD/tls/cert.pem
  keyFile: $BENCH_BUILD/tls/key.pem
  sessionResumption: false
server:
  extenderNodeCacheBytes: $NODE_CACHE_BYTES
plugins:
  directory: $BUILD/plugins
  deviceConfigFile: $REPO/config/device-config.yaml
  devices:
    - name: nvidia
      library: nvidia.so
    - name: amd
      library: amd.so
  scheduling:
    - name: hami-policies
      library: hami-policies.so
cluster:
  source: file
  file: $OUT/cluster.json
log:
  level: warn
CONF

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

one_conn() {  # label pid url path body
  DURATION=$DURATION REPEATS=$REPEATS "$SHARED/run-webhook.sh" -l "$1" -p "$2" -c 1 -t 1 \
    -m keepalive "$3" "$4" "$5"
}

nginx_pid=$(SERVER_CPUS=0 "$SHARED/peers/nginx/start-nginx.sh" "$PORT_NGINX")
pids+=("$nginx_pid")
one_conn nginx-full "$nginx_pid" "https://127.0.0.1:$PORT_NGINX" /filter "$FULL" | tee "$OUT/nginx.txt"
kill "$nginx_pid"

taskset -c 0 "$BUILD/bin/hami-scheduler" --config "$OUT/hami.yaml" > "$OUT/hami.log" 2>&1 &
ours_pid=$!
pids+=("$ours_pid")
for _ in $(seq 100); do
  curl -sk -o /dev/null "https://127.0.0.1:$PORT_OURS/healthz" && break
  kill -0 "$ours_pid" 2>/dev/null || { cat "$OUT/hami.log" >&2; exit 1; }
  sleep 0.1
done
rss_kb() { awk "/^$1/ { print \$2 }" "/proc/$ours_pid/status"; }
echo "RSS    hami-idle              VmHWM=$(rss_kb VmHWM) kB VmRSS=$(rss_kb VmRSS) kB" \
  "RssAnon=$(rss_kb RssAnon) kB RssFile=$(rss_kb RssFile) kB"
one_conn hami-names "$ours_pid" "https://127.0.0.1:$PORT_OURS" /filter "$NAMES" | tee "$OUT/hami-names.txt"
one_conn hami-full "$ours_pid" "https://127.0.0.1:$PORT_OURS" /filter "$FULL" | tee "$OUT/hami-full.txt"
# VmHWM counts the shared libraries' pages (RssFile: OpenSSL, Poco, libstdc++
# mapped from the page cache) as well as the host's private memory (RssAnon),
# which stays at its peak after the requests: the freed heap is kept for the
# next one.
anon_after=$(rss_kb RssAnon) file_after=$(rss_kb RssFile)
echo "RSS    hami-after-full        VmHWM=$(rss_kb VmHWM) kB VmRSS=$(rss_kb VmRSS) kB" \
  "RssAnon=$anon_after kB RssFile=$file_after kB"

p50() { grep "^MEDIAN" "$1" | sed -E 's/.* p50=([0-9.]+)ms.*/\1/'; }
body_kb=$(( $(stat -c %s "$FULL") / 1024 ))
hwm=$(grep "^RSS" "$OUT/hami-full.txt" | sed -E 's/.*VmHWM=([0-9]+).*/\1/')
echo
echo "SUMMARY NodeNames p50 $(p50 "$OUT/hami-names.txt") ms (target <= 1 ms)"
echo "SUMMARY full Nodes p50 $(p50 "$OUT/hami-full.txt") ms vs nginx reading the body $(p50 "$OUT/nginx.txt") ms:" \
  "$(awk -v a="$(p50 "$OUT/hami-full.txt")" -v b="$(p50 "$OUT/nginx.txt")" 'BEGIN { printf "%.2f", a / b }')x (target <= 3x)"
echo "SUMMARY peak RSS ${hwm} kB vs body ${body_kb} kB:" \
  "$(awk -v a="$hwm" -v b="$body_kb" 'BEGIN { printf "%.2f", a / b }')x (target <= 3x);" \
  "private ${anon_after} kB ($(awk -v a="$anon_after" -v b="$body_kb" 'BEGIN { printf "%.2f", a / b }')x)," \
  "shared library pages ${file_after} kB"
