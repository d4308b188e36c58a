#!/usr/bin/env bash
# Portal page latency, warm (bench/portal.py): a demo server of the given
# profile (default release) over the committed fixture store, server and
# client pinned to different cores.
#
#   bench/portal.sh [N]    PROFILE=dist bench/portal.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}
PORT=${PORT:-18294}
PROFILE=${PROFILE:-release}
TARGET=${CARGO_TARGET_DIR:-target}
if [ "$PROFILE" = debug ]; then
  cargo build -q -p linecast-api
else
  cargo build --profile "$PROFILE" -q -p linecast-api
fi
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/var"
cp -r fixtures/store "$WORK/var/store"
LINECAST_VAR_DIR="$WORK/var" LINECAST_NOW=2026-11-15T17:00:00Z LINECAST_BIND=127.0.0.1:$PORT RUST_LOG=warn LINECAST_PUBLIC_RATE=0 \
  taskset -c 0 "$TARGET/$PROFILE/linecast-api" >"$WORK/server.log" 2>&1 &
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PORT/api/v1/readiness" >/dev/null && break; sleep 0.2; done
taskset -c 1 python3 bench/portal.py "http://127.0.0.1:$PORT" "$(cat "$WORK/var/demo-key.txt")" "$N"
