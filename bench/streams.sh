#!/usr/bin/env bash
# 1,000 idle event streams on one instance: a release server over the
# committed fixture store (demo mode, its demo key), with the per-customer
# stream cap and burst raised so one key can open them all; the server's RSS
# before, with every stream open, and after 20 s idle (bench/streams.py).
#
#   bench/streams.sh [N] [IDLE_S]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
IDLE=${2:-20}
PORT=${PORT:-18293}
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --profile dist -q -p linecast-api
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/var"
cp -r fixtures/store "$WORK/var/store"
LINECAST_VAR_DIR="$WORK/var" LINECAST_NOW=2026-11-15T17:00:00Z LINECAST_BIND=127.0.0.1:$PORT RUST_LOG=warn \
  LINECAST_MAX_STREAMS_PER_CUSTOMER=$((N + 10)) LINECAST_RATE_BURST=$((N + 100)) \
  taskset -c 0 "$TARGET/dist/linecast-api" >"$WORK/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/api/v1/liveness" >/dev/null && break; sleep 0.2; done
sleep 1
taskset -c 1 python3 bench/streams.py "http://127.0.0.1:$PORT" "$(cat "$WORK/var/demo-key.txt")" "$pid" "$N" "$IDLE"
