#!/usr/bin/env bash
# Instructions per request on the authenticated hit path, counted by
# valgrind's callgrind (user space only; the kernel's network stack is not
# counted). Instruction counts do not depend on what else the machine is
# doing, so two builds compare in any order, on a loaded machine too.
#
#   bench/instructions.sh [N] [ENCODING] [API_BINARY]
#
# Starts linecast (dist build, demo store, 100 keys of one customer)
# under callgrind with instrumentation off, warms it with 300 requests,
# counts N (default 2000) sequential requests rotating the keys on nba
# predictions, then does the same for the bare handler serving the very
# bytes linecast sent. Prints `Ir/request` for both. ENCODING is identity
# (default) or gzip. API_BINARY defaults to target/dist/linecast-api (pass
# an older build's copy to compare two builds).
#
# Background tasks (flush, watcher) run in proportion to wall time, so
# the total (`Ir/request`, every thread) moves by a few percent between
# runs; compare builds side by side. `request_path_Ir/request` is the
# request path alone: actix's HTTP/1 dispatcher inclusive (parse,
# middleware, handler, headers, write), without the flush round; it
# moves by a few hundred between runs.
# KEEP=/dir keeps each callgrind profile there (callgrind_annotate
# --inclusive=yes reads it). Needs valgrind, curl and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/keys.sh
N=${1:-2000}
ENCODING=${2:-identity}
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --profile dist -q -p linecast-api -p linecast-admin --bins --example bare
API=${3:-$TARGET/dist/linecast-api}
ADMIN=$TARGET/dist/linecast-admin
BARE=$TARGET/dist/examples/bare
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
export LINECAST_VAR_DIR="$WORK/var" LINECAST_NOW=2026-11-21T17:00:00Z RUST_LOG=warn LINECAST_PUBLIC_RATE=0
P=/api/v1/predictions/nba/won_on_points
DB="sqlite://$WORK/var/linecast.db?mode=rwc"

# Demo data, one customer, 100 keys, and the bytes for the bare handler.
LINECAST_BIND=127.0.0.1:18320 "$API" >"$WORK/setup.log" 2>&1 &
setup=$!
for _ in $(seq 1 600); do curl -sf -o /dev/null http://127.0.0.1:18320/api/v1/liveness && break; sleep 0.2; done
issue_keys "$ADMIN" "$DB" 1 100 "$WORK/keys.txt"
one=$(head -1 "$WORK/keys.txt")
curl -s -o "$WORK/body.json" -H "X-API-Key: $one" "http://127.0.0.1:18320$P"
curl -s -o "$WORK/body.json.gz" -H 'Accept-Encoding: gzip' -H "X-API-Key: $one" "http://127.0.0.1:18320$P"
printf '%s\t%s\t%s\n' "$P" "$WORK/body.json" "$WORK/body.json.gz" >"$WORK/manifest.tsv"
kill $setup; wait $setup 2>/dev/null || true

WORKERS=$(nproc)
drive() { # port count
  python3 - "$1" "$2" "$ENCODING" "$WORK/keys.txt" "$P" <<'PY'
import http.client, sys
port, n, enc, keys_file, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
keys = [k.strip() for k in open(keys_file) if k.strip()]
conn = http.client.HTTPConnection("127.0.0.1", port)
statuses = {}
for i in range(n):
    headers = {"X-API-Key": keys[i % len(keys)]}
    if enc == "gzip":
        headers["Accept-Encoding"] = "gzip"
    conn.request("GET", path, headers=headers)
    res = conn.getresponse()
    res.read()
    statuses[res.status] = statuses.get(res.status, 0) + 1
if set(statuses) != {200}:
    sys.exit(f"statuses {statuses}")
PY
}

count() { # label port binary
  local label=$1 port=$2 bin=$3 pid ir
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/$label.out" "$bin" >"$WORK/$label.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.5; done
  # One warm-up connection per worker (connections go to the workers in
  # turn): each worker's per-thread memos know every key before counting.
  for _ in $(seq 1 "$WORKERS"); do drive "$port" 300; done
  callgrind_control -i on "$pid" >/dev/null
  drive "$port" "$N"
  callgrind_control -d "$pid" >/dev/null
  callgrind_control -i off "$pid" >/dev/null
  kill "$pid"; wait "$pid" 2>/dev/null || true
  ir=$(callgrind_annotate "$WORK/$label.out.1" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
  # The request path alone: everything actix's HTTP/1 dispatcher runs for
  # a connection (parse, middleware, handler, headers, write), inclusive,
  # without the threads beside it (the flush round, the store watcher).
  path_ir=$(callgrind_annotate --inclusive=yes --threshold=100 "$WORK/$label.out.1" 2>/dev/null \
    | grep -E '^ *[0-9,]+ .*h1/dispatcher\.rs:<actix_http::h1::dispatcher::Dispatcher<.*as core::future::future::Future>::poll \[' \
    | awk '{gsub(",", "", $1); s += $1} END {print s + 0}')
  echo "$label $ENCODING Ir/request=$((ir / N)) request_path_Ir/request=$((path_ir / N))"
  if [ -n "${KEEP:-}" ]; then cp "$WORK/$label.out.1" "$KEEP/$label-$ENCODING.callgrind"; fi
}

LINECAST_BIND=127.0.0.1:18321 count linecast 18321 "$API"
BARE_MANIFEST="$WORK/manifest.tsv" BARE_BIND=127.0.0.1:18322 count bare 18322 "$BARE"
