#!/usr/bin/env bash
# Builds the `dev` preset and runs the host with config/dev.yaml: HTTPS on
# https://127.0.0.1:8443 (one loopback socket for the webhook and the
# extender listener) with a certificate generated at start, plugins
# from build/dev/plugins. Extra arguments go to hami-scheduler (e.g. -v).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
cmake --preset dev
cmake --build --preset dev -j2
exec build/dev/bin/hami-scheduler --config config/dev.yaml "$@"
