#!/usr/bin/env bash
# Builds the container image (packaging/container/Dockerfile, the repository
# root as build context) under the name the Helm chart and the manifests use
# by default: [REGISTRY/]hami-scheduler:<project version>, the version being
# the one of project() in CMakeLists.txt (the chart's appVersion, which
# packaging.HelmChart checks).
#
#   bash scripts/build-image.sh                      # hami-scheduler:0.1.0
#   bash scripts/build-image.sh --push registry.example.com
#                                                    # registry.example.com/hami-scheduler:0.1.0, pushed
#   bash scripts/build-image.sh --print [REGISTRY]   # print the image name only
#
# Needs docker (or DOCKER=podman) with a running engine; --push needs a
# login to REGISTRY (`docker login REGISTRY`).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/build-image.sh [--print | --push] [REGISTRY]" >&2
  exit 2
}

mode=build
case "${1:-}" in
  --print) mode=print; shift ;;
  --push) mode=push; shift ;;
  -h | --help) usage ;;
esac
[ $# -le 1 ] || usage
registry=${1:-}
[ "$mode" != push ] || [ -n "$registry" ] || {
  echo "scripts/build-image.sh: --push needs the registry to push to" >&2
  exit 2
}

version=$(sed -n 's/^project(hami-scheduler VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || {
  echo "scripts/build-image.sh: no 'project(hami-scheduler VERSION x.y.z' in CMakeLists.txt" >&2
  exit 1
}
image="hami-scheduler:$version"
[ -z "$registry" ] || image="${registry%/}/$image"

if [ "$mode" = print ]; then
  echo "$image"
  exit 0
fi

docker=${DOCKER:-docker}
"$docker" build -f packaging/container/Dockerfile -t "$image" .
if [ "$mode" = push ]; then
  "$docker" push "$image"
fi
echo "$image"
