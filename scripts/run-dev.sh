#!/usr/bin/env bash
# Builds what serving needs (hami-scheduler and the plugins: the `run`
# preset, build/run, no tests) and runs the host with config/dev.yaml: HTTPS
# on https://127.0.0.1:8443 (one loopback socket for the webhook and the
# extender listener) with a certificate generated at start, plugins from
# build/run/plugins. Installs only the packages building and running need
# (scripts/deps.sh run). Extra arguments go to hami-scheduler (e.g. -v).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh run
cmake --preset run
cmake --build --preset run -j2
exec build/run/bin/hami-scheduler --config config/dev.yaml "$@"
