#!/usr/bin/env bash
# The extender's /filter over HTTPS at one keep-alive connection (how
# kube-scheduler calls it), next to the nginx ceiling of the shared reference
# benchmark (../shared/bench), in one run:
#   - NodeNames mode: extender-1000-names.json, with the same 1,000 nodes
#     loaded into the file backend (p50 latency);
#   - full Nodes mode: the 5.4 MB extender-1000.json (p50 latency), against
#     nginx reading the same body before answering (its /filter location),
#     served by a second host whose file backend holds no node (that mode
#     reads the Node objects from the body);
#   - peak RSS (VmHWM) of that second host after serving the 5.4 MB body,
#     split into shared-library pages and private memory, next to the peak
#     of rss-floor (bench/extender/rss_floor.cpp): a Poco HTTPS server that
#     only reads the body, i.e. what any host on Poco NetSSL and OpenSSL
#     that reads the body into memory holds at least.
# The servers are pinned to CPU 0 (wrk runs on CPU 1), TLS 1.3, the same EC
# certificate, session tickets and cache off. Loopback only.
#
# usage: bench/extender/run-https-bench.sh BUILD_DIR [SHARED_BENCH_DIR]
#   BUILD_DIR         a Release build with HAMI_BUILD_BENCH=ON (the "release"
#                     preset: hami-scheduler, the plugins, rss-floor),
#                     e.g. build/release
#   SHARED_BENCH_DIR  default: ../shared/bench next to the repository
# env: DURATION (s per run, default 5), REPEATS (default 3), PORT_NGINX
#      (8443), PORT_OURS (9443), PORT_FLOOR (9553), BENCH_BUILD
#      (/tmp/hami-bench), NODE_CACHE_BYTES (server.extenderNodeCacheBytes,
#      default 67108864; 0 parses every node of every full-Nodes call)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?usage: $0 BUILD_DIR [SHARED_BENCH_DIR]}" && pwd)
SHARED=$(cd "${2:-$REPO/../shared/bench}" && pwd)
DURATION=${DURATION:-5} REPEATS=${REPEATS:-3} NODE_CACHE_BYTES=${NODE_CACHE_BYTES:-67108864}
PORT_NGINX=${PORT_NGINX:-8443} PORT_OURS=${PORT_OURS:-9443} PORT_FLOOR=${PORT_FLOOR:-9553}
export BENCH_BUILD=${BENCH_BUILD:-/tmp/hami-bench}
NAMES=$SHARED/data/extender-1000-names.json
FULL=$BENCH_BUILD/data/extender-1000.json
OUT=$BENCH_BUILD/extender-https
mkdir -p "$OUT" "$BENCH_BUILD/data"
FLOOR=$BUILD/bench/extender/rss-floor
[[ -x $FLOOR ]] || { echo "$FLOOR missing: configure $BUILD with -DHAMI_BUILD_BENCH=ON" >&2; exit 1; }

"$SHARED/tls/gen-cert.sh" ec >/dev/null
[[ -s "$FULL" ]] || python3 "$SHARED/data/gen_data.py" --out "$BENCH_BUILD/data" >/dev/null
# The cluster the NodeNames request names: the full request's Node objects.
python3 - "$FULL" "$OUT/cluster.json" <<'PY'
import json, sys
args = json.load(open(sys.argv[1]))
json.dump({"kind": "List", "items": [dict(n, kind="Node") for n in args["Nodes"]["items"]]},
          open(sys.argv[2], "w"))
PY

echo '{"kind": "List", "items": []}' > "$OUT/no-nodes.json"
write_config() {  # file cluster_file
  cat > "$1" <<CONF
listen: 127.0.0.1:$PORT_OURS
tls:
  certFile: $BENCH_BUILD/tls/cert.pem
  keyFile: $BENCH_BUILD/tls/key.pem
  sessionResumption: false
# One loopback socket for both listeners: the extender verbs on PORT_OURS.
extender:
  listen: 127.0.0.1:$PORT_OURS
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
  file: $2
log:
  level: warn
CONF
}
write_config "$OUT/hami.yaml" "$OUT/cluster.json"
write_config "$OUT/hami-no-nodes.yaml" "$OUT/no-nodes.json"

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

rss_kb() { awk "/^$2/ { print \$2 }" "/proc/$1/status"; }
rss_line() {  # label pid
  echo "RSS    $1 VmHWM=$(rss_kb "$2" VmHWM) kB VmRSS=$(rss_kb "$2" VmRSS) kB" \
    "RssAnon=$(rss_kb "$2" RssAnon) kB RssFile=$(rss_kb "$2" RssFile) kB"
}
wait_up() {  # pid port log
  for _ in $(seq 100); do
    curl -sk -o /dev/null "https://127.0.0.1:$2/healthz" && return 0
    kill -0 "$1" 2>/dev/null || { cat "$3" >&2; exit 1; }
    sleep 0.1
  done
  echo "no answer on port $2; see $3" >&2; exit 1
}
start_host() {  # config log; sets host_pid
  taskset -c 0 "$BUILD/bin/hami-scheduler" --config "$1" > "$2" 2>&1 &
  host_pid=$!
  pids+=("$host_pid")
  wait_up "$host_pid" "$PORT_OURS" "$2"
}

# The floor: the same body read by a server that does nothing else.
taskset -c 0 "$FLOOR" "$BENCH_BUILD/tls/cert.pem" "$BENCH_BUILD/tls/key.pem" "$PORT_FLOOR" \
  > "$OUT/floor.log" 2>&1 &
floor_pid=$!
pids+=("$floor_pid")
wait_up "$floor_pid" "$PORT_FLOOR" "$OUT/floor.log"
rss_line floor-idle "$floor_pid" | tee "$OUT/floor.txt"
one_conn floor-full "$floor_pid" "https://127.0.0.1:$PORT_FLOOR" /filter "$FULL" | tee -a "$OUT/floor.txt"
rss_line floor-after-full "$floor_pid" | tee -a "$OUT/floor.txt"
floor_hwm=$(rss_kb "$floor_pid" VmHWM) floor_file=$(rss_kb "$floor_pid" RssFile)
kill "$floor_pid"

start_host "$OUT/hami.yaml" "$OUT/hami.log"
one_conn hami-names "$host_pid" "https://127.0.0.1:$PORT_OURS" /filter "$NAMES" | tee "$OUT/hami-names.txt"
kill "$host_pid"; wait "$host_pid" 2>/dev/null || true

start_host "$OUT/hami-no-nodes.yaml" "$OUT/hami-no-nodes.log"
rss_line hami-idle "$host_pid" | tee "$OUT/hami-full.txt"
one_conn hami-full "$host_pid" "https://127.0.0.1:$PORT_OURS" /filter "$FULL" | tee -a "$OUT/hami-full.txt"
# VmHWM counts the shared libraries' pages (RssFile: OpenSSL, Poco, libstdc++
# mapped from the page cache) as well as the host's private memory (RssAnon),
# which stays at its peak after the requests: the freed heap is kept for the
# next one.
rss_line hami-after-full "$host_pid" | tee -a "$OUT/hami-full.txt"
hwm=$(rss_kb "$host_pid" VmHWM) anon_after=$(rss_kb "$host_pid" RssAnon) file_after=$(rss_kb "$host_pid" RssFile)

p50() { grep "^MEDIAN" "$1" | sed -E 's/.* p50=([0-9.]+)ms.*/\1/'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
body_kb=$(( $(stat -c %s "$FULL") / 1024 ))
echo
echo "SUMMARY NodeNames p50 $(p50 "$OUT/hami-names.txt") ms (target <= 1 ms)"
echo "SUMMARY full Nodes p50 $(p50 "$OUT/hami-full.txt") ms vs nginx reading the body $(p50 "$OUT/nginx.txt") ms:" \
  "$(ratio "$(p50 "$OUT/hami-full.txt")" "$(p50 "$OUT/nginx.txt")")x (target <= 3x)"
echo "SUMMARY peak RSS ${hwm} kB vs body ${body_kb} kB: $(ratio "$hwm" "$body_kb")x (target <= 3x);" \
  "private ${anon_after} kB ($(ratio "$anon_after" "$body_kb")x), shared library pages ${file_after} kB"
nginx_hwm=$(grep "^RSS" "$OUT/nginx.txt" | sed -E 's/.*VmHWM=([0-9]+).*/\1/')
echo "SUMMARY nginx peak RSS ${nginx_hwm} kB ($(ratio "$nginx_hwm" "$body_kb")x)"
echo "SUMMARY floor (Poco HTTPS server reading the body only): peak RSS ${floor_hwm} kB" \
  "($(ratio "$floor_hwm" "$body_kb")x), shared library pages ${floor_file} kB"
