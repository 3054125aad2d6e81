#!/usr/bin/env bash
# The real-cluster suite: hami-scheduler driven by a real kube-apiserver,
# etcd and kube-scheduler on loopback (README.md beside this file).
#
#   bash tests/realcluster/run.sh [go test flags, e.g. -run Webhook]
#
# Needs Go 1.26 or later on PATH; installs the Debian packages it needs
# (scripts/deps.sh), builds the host and its plugins (the `release` preset,
# or the build folder in $HAMI_BUILD_DIR), the pinned Helm, and the control
# plane (scripts/kube-control-plane.sh build, cached), then runs the suite.
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v go >/dev/null 2>&1 || {
  echo "tests/realcluster/run.sh: Go is not on PATH; the real-cluster suite needs Go 1.26 or later" >&2
  exit 1
}
bash scripts/deps.sh
if [ -z "${HAMI_BUILD_DIR:-}" ]; then
  cmake --preset release -DHAMI_WERROR=ON -DHAMI_BUILD_BENCH=OFF >/dev/null
  cmake --build --preset release -j2 --target hami-scheduler vgpu hami-policies nvidia amd hygon
  export HAMI_BUILD_DIR=$PWD/build/release
fi
bash scripts/install-helm.sh "$HAMI_BUILD_DIR/tools" >/dev/null
export HAMI_HELM=$HAMI_BUILD_DIR/tools/helm
bash scripts/kube-control-plane.sh build >/dev/null

cd tests/realcluster
# The suite is sequential (one control plane), bounded in time.
exec env GOFLAGS=-mod=readonly go test -count=1 -p 1 -timeout 40m -v "$@" .
