#!/usr/bin/env bash
# perf profile of the authenticated hit path (dist build): the server on
# core 0 over the demo store, one customer with 2,400 keys, wrk on core 1
# with 64 connections rotating keys on nba predictions; `perf record -F 999
# -g` on the server for 8 s of a 12 s run; prints wrk's RESULT line and the
# top symbols (self time).
#
#   bench/profile.sh                 # identity
#   ENCODING=gzip bench/profile.sh   # gzip
#
# Needs perf (linux-perf), wrk and curl. The recording stays in $PERF_DATA
# (default /tmp/linecast-perf.data) for `perf report -i`. API_BINARY=path
# profiles another build of the server.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/keys.sh
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --profile dist -q -p linecast-api -p linecast-admin --bins
API=${API_BINARY:-$TARGET/dist/linecast-api}
ADMIN=$TARGET/dist/linecast-admin
PERF_DATA=${PERF_DATA:-/tmp/linecast-perf.data}
PORT=18199
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
export LINECAST_VAR_DIR="$WORK/var" LINECAST_NOW=2026-11-21T17:00:00Z RUST_LOG=warn LINECAST_PUBLIC_RATE=0
DB="sqlite://$WORK/var/linecast.db?mode=rwc"
LINECAST_BIND=127.0.0.1:$PORT taskset -c 0 "$API" >"$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PORT/api/v1/liveness" >/dev/null && break; sleep 0.2; done
issue_keys "$ADMIN" "$DB" 1 2400 "$WORK/keys.txt"
export KEYS_FILE="$WORK/keys.txt" PATHS=/api/v1/predictions/nba/won_on_points ENCODING=${ENCODING:-identity}
taskset -c 1 wrk -t1 -c 64 -d 3s -s bench/rotate_keys.lua "http://127.0.0.1:$PORT" >/dev/null
taskset -c 1 wrk -t1 -c 64 -d 12s -s bench/rotate_keys.lua "http://127.0.0.1:$PORT" >"$WORK/wrk.txt" &
WRK=$!
sleep 2
perf record -F 999 -g -p "$PID" -o "$PERF_DATA" -- sleep 8 2>/dev/null
wait $WRK || true
grep RESULT "$WORK/wrk.txt" || cat "$WORK/wrk.txt"
perf report -i "$PERF_DATA" --no-children --sort symbol --stdio -g none 2>/dev/null | grep -v '^#' | grep '%' | sed 's/  */ /g' | sed -n '1,40p'
