#!/usr/bin/env bash
# `npm run test:restate`: the Restate tests (a real restate-server from node_modules, troupe worker processes).
# Everything they start listens on 127.0.0.1. restate-server also asks GitHub for its latest release at start
# (not configurable), so where the kernel allows unprivileged namespaces the tests run in a network namespace
# that holds only loopback: nothing can leave the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
vitest=(node_modules/.bin/vitest run --config vitest.restate.config.ts "$@")
if command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1 && unshare -rn true 2>/dev/null; then
  exec unshare -rn sh -c 'ip link set lo up && exec "$@"' sh "${vitest[@]}"
fi
echo "note: no network namespace here (unshare -rn); running the Restate tests on the host network" >&2
exec "${vitest[@]}"
