#!/usr/bin/env bash
# A real Kubernetes control plane on loopback, for the real-cluster suite
# (tests/realcluster) and for trying hami-scheduler by hand.
#
#   scripts/kube-control-plane.sh build        build etcd, kube-apiserver and
#                                              kube-scheduler once; print their folder
#   scripts/kube-control-plane.sh start DIR    start etcd and kube-apiserver with their
#                                              state, certificates and logs in DIR
#   scripts/kube-control-plane.sh stop DIR     stop what `start DIR` started
#
# The components are built from their official Go modules at the versions
# pinned in tests/realcluster/go.mod (k8s.io/kubernetes, every staging module
# replaced by its matching v0.x release) and tests/realcluster/etcd/go.mod
# (go.etcd.io/etcd/server/v3), with the go.sum files checked in. They are
# cached in $HAMI_KUBE_CACHE (default ~/.cache/hami-scheduler/control-plane),
# in a folder keyed by those files and the Go version: a second `build` only
# checks. Needs Go (1.26 or later) and openssl, curl and python3.
#
# `start` listens on 127.0.0.1 only: etcd (plain HTTP, its own ports) and
# kube-apiserver (TLS with a CA made for DIR, client certificates and
# ServiceAccount tokens, RBAC, the default admission plugins, which include
# MutatingAdmissionWebhook, and an audit log of every request in
# DIR/audit.log). It writes:
#   DIR/admin.kubeconfig   a system:masters client certificate
#   DIR/env                KUBE_BIN, KUBE_APISERVER, KUBE_CA, KUBE_DIR (shell syntax)
# Ports come from the kernel unless KUBE_APISERVER_PORT / ETCD_PORT are set.
# There is no kubelet, controller manager or proxy: nodes are Node objects
# created through the API, and no Service address carries traffic.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
modules="$here/tests/realcluster"
K8S_VERSION=v1.37.2

die() {
  echo "kube-control-plane.sh: $*" >&2
  exit 1
}

cache_dir() {
  command -v go >/dev/null 2>&1 || die "Go is not on PATH (the real-cluster suite needs Go 1.26 or later)"
  local key
  key=$( (cat "$modules/go.mod" "$modules/go.sum" "$modules/etcd/go.mod" "$modules/etcd/go.sum"
    go version) | sha256sum | cut -c1-12)
  echo "${HAMI_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hami-scheduler/control-plane}/k8s-$K8S_VERSION-$key"
}

build() {
  local dir bin
  dir=$(cache_dir)
  bin="$dir/bin"
  if [ -x "$bin/etcd" ] && [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kube-scheduler" ]; then
    echo "$bin"
    return
  fi
  mkdir -p "$dir"
  local work
  work=$(mktemp -d "$dir/.build.XXXXXX")
  # The version the binaries report (/version, user agents): the module's.
  local ldflags="-s -w"
  local pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1"
    ldflags+=" -X $pkg.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2)"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  local start=$SECONDS
  echo "kube-control-plane.sh: building kube-apiserver and kube-scheduler $K8S_VERSION (a cold build takes a while)" >&2
  (cd "$modules" && GOFLAGS=-mod=readonly go build -trimpath -ldflags "$ldflags" -o "$work/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-scheduler)
  echo "kube-control-plane.sh: building etcd" >&2
  (cd "$modules/etcd" && GOFLAGS=-mod=readonly go build -trimpath -ldflags "-s -w" \
    -o "$work/etcd" go.etcd.io/etcd/server/v3)
  rm -rf "$bin"
  mv "$work" "$bin"
  echo "kube-control-plane.sh: built in $((SECONDS - start)) s into $bin" >&2
  echo "$bin"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# make_cert NAME SUBJECT [SAN]: a key and a certificate signed by DIR's CA.
make_cert() {
  local name=$1 subject=$2 san=${3:-}
  openssl req -new -newkey rsa:2048 -nodes -keyout "$pki/$name.key" -subj "$subject" \
    -out "$pki/$name.csr" 2>/dev/null
  local ext="$pki/$name.ext"
  if [ -n "$san" ]; then
    printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$san" >"$ext"
  else
    printf 'extendedKeyUsage=clientAuth\n' >"$ext"
  fi
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 30 -extfile "$ext" -out "$pki/$name.crt" 2>/dev/null
  rm -f "$pki/$name.csr" "$ext"
}

wait_ready() {
  local what=$1 url=$2 log=$3 pid=$4
  shift 4
  local deadline=$((SECONDS + 120))
  until curl -fsS "$@" "$url" >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null || { tail -n 30 "$log" >&2; die "$what exited during start (log: $log)"; }
    [ $SECONDS -lt $deadline ] || { tail -n 30 "$log" >&2; die "$what not ready after 120 s (log: $log)"; }
    sleep 0.2
  done
}

start() {
  local dir=$1
  local bin
  bin=$(build)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ ! -e "$dir/pids" ] || die "$dir already holds a running control plane (stop it first)"
  pki="$dir/pki"
  mkdir -p "$pki"
  local begin=$SECONDS

  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$pki/ca.key" -out "$pki/ca.crt" -days 30 \
    -subj "/CN=hami-realcluster-ca" 2>/dev/null
  make_cert apiserver "/CN=kube-apiserver" \
    "IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
  make_cert admin "/O=system:masters/CN=realcluster-admin"
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null

  local etcd_port=${ETCD_PORT:-$(free_port)} peer_port api_port=${KUBE_APISERVER_PORT:-$(free_port)}
  peer_port=$(free_port)
  "$bin/etcd" --name realcluster --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "realcluster=http://127.0.0.1:$peer_port" --listen-metrics-urls "" \
    --unsafe-no-fsync --log-level warn >"$dir/etcd.log" 2>&1 &
  local etcd_pid=$!
  echo "$etcd_pid" >"$dir/pids"
  wait_ready etcd "http://127.0.0.1:$etcd_port/health" "$dir/etcd.log" "$etcd_pid"

  cat >"$dir/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
EOF
  "$bin/kube-apiserver" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$api_port" \
    --etcd-servers="http://127.0.0.1:$etcd_port" \
    --cert-dir="$pki" --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
    --client-ca-file="$pki/ca.crt" \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
    --api-audiences=https://kubernetes.default.svc \
    --service-cluster-ip-range=10.96.0.0/16 --endpoint-reconciler-type=none \
    --authorization-mode=Node,RBAC --allow-privileged=true \
    --audit-policy-file="$dir/audit-policy.yaml" --audit-log-path="$dir/audit.log" \
    --audit-log-mode=blocking --audit-log-format=json \
    --profiling=false --v=1 >"$dir/kube-apiserver.log" 2>&1 &
  local api_pid=$!
  echo "$api_pid" >>"$dir/pids"
  wait_ready kube-apiserver "https://127.0.0.1:$api_port/readyz" "$dir/kube-apiserver.log" "$api_pid" \
    --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key"

  cat >"$dir/admin.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: realcluster
    cluster:
      server: https://127.0.0.1:$api_port
      certificate-authority: $pki/ca.crt
users:
  - name: admin
    user:
      client-certificate: $pki/admin.crt
      client-key: $pki/admin.key
contexts:
  - name: admin
    context: {cluster: realcluster, user: admin}
current-context: admin
EOF
  cat >"$dir/env" <<EOF
KUBE_BIN=$bin
KUBE_DIR=$dir
KUBE_APISERVER=https://127.0.0.1:$api_port
KUBE_CA=$pki/ca.crt
KUBECONFIG=$dir/admin.kubeconfig
EOF
  echo "kube-control-plane.sh: kube-apiserver ready at https://127.0.0.1:$api_port in $((SECONDS - begin)) s (KUBECONFIG=$dir/admin.kubeconfig)" >&2
}

stop() {
  local dir=$1
  [ -f "$dir/pids" ] || return 0
  local pid
  # kube-apiserver first, then etcd.
  for pid in $(tac "$dir/pids"); do
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -f "$dir/pids"
}

case "${1:-}" in
  build) build ;;
  start) [ $# -eq 2 ] || die "usage: $0 start DIR"; start "$2" ;;
  stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
  *) die "usage: $0 build | start DIR | stop DIR" ;;
esac
