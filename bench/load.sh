#!/usr/bin/env bash
# HTTP load benchmark: the same endpoint with auth and limits on, then off,
# in one run; server and load generator pinned to different cores.
#
#   bench/load.sh [DURATION_S] [CONNECTIONS] [PATHS]
#
# Needs wrk (Debian package). Prints one RESULT line per run and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-30}
CONNECTIONS=${2:-64}
PATHS=${3:-/api/v1/predictions/nba/won_on_points}
NOW=${LINECAST_NOW:-2026-11-21T17:00:00Z}
PORT_AUTH=18181
PORT_OPEN=18182
PORT_BARE=18183
KEYS=${KEYS:-400}

# PROFILE=debug reuses the test build (CI's shortened run); numbers are only
# meaningful with the default release profile.
PROFILE=${PROFILE:-release}
if [ "$PROFILE" = release ]; then
  cargo build --release -q -p linecast-api -p linecast-admin --example bare
else
  cargo build -q -p linecast-api -p linecast-admin --example bare
fi
API=target/$PROFILE/linecast-api
ADMIN=target/$PROFILE/linecast-admin
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
export LINECAST_VAR_DIR="$WORK/var" LINECAST_NOW="$NOW" RUST_LOG=warn
DB="sqlite://$WORK/var/linecast.db?mode=rwc"

start() { # port, extra env...
  local port=$1; shift
  env LINECAST_BIND=127.0.0.1:$port "$@" taskset -c 0 "$API" >"$WORK/server-$port.log" 2>&1 &
  for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$port/api/v1/liveness" >/dev/null && return 0; sleep 0.2; done
  echo "server on $port did not start"; cat "$WORK/server-$port.log"; exit 1
}

start $PORT_AUTH
# One bench customer with a quota large enough for the run and many keys.
"$ADMIN" customers create --database-url "$DB" --email bench@linecast.local --name Bench --monthly-limit 1000000000 >/dev/null
for _ in $(seq 1 "$KEYS"); do
  "$ADMIN" keys issue --database-url "$DB" --customer-email bench@linecast.local --name bench --json
done | sed -n 's/.*"api_key": *"\([^"]*\)".*/\1/p' >"$WORK/keys.txt"
echo "issued $(wc -l <"$WORK/keys.txt") keys"

run() { # port label
  taskset -c 1 wrk -t1 -c "$CONNECTIONS" -d "${DURATION}s" --latency -s bench/rotate_keys.lua "http://127.0.0.1:$1" \
    | tee "$WORK/wrk-$2.txt" | grep RESULT | sed "s/^/$2 /"
}
export KEYS_FILE="$WORK/keys.txt" PATHS
# Warm the caches, then measure.
taskset -c 1 wrk -t1 -c 8 -d 2s -s bench/rotate_keys.lua "http://127.0.0.1:$PORT_AUTH" >/dev/null
run $PORT_AUTH auth
start $PORT_OPEN LINECAST_AUTH_DISABLED=true
taskset -c 1 wrk -t1 -c 8 -d 2s -s bench/rotate_keys.lua "http://127.0.0.1:$PORT_OPEN" >/dev/null
run $PORT_OPEN open
# The ceiling: a bare actix handler serving the same body (first path).
first=${PATHS%%,*}
curl -s -H "X-API-Key: $(head -1 "$WORK/keys.txt")" "http://127.0.0.1:$PORT_AUTH$first" >"$WORK/body.json"
echo "body of $first: $(wc -c <"$WORK/body.json") bytes"
BARE_BODY_FILE="$WORK/body.json" BARE_BIND=127.0.0.1:$PORT_BARE taskset -c 0 target/$PROFILE/examples/bare >"$WORK/bare.log" 2>&1 &
sleep 1
taskset -c 1 wrk -t1 -c 8 -d 2s -s bench/rotate_keys.lua "http://127.0.0.1:$PORT_BARE" >/dev/null
run $PORT_BARE bare
a=$(grep -o 'rps=[0-9.]*' "$WORK/wrk-auth.txt" | cut -d= -f2)
o=$(grep -o 'rps=[0-9.]*' "$WORK/wrk-open.txt" | cut -d= -f2)
b=$(grep -o 'rps=[0-9.]*' "$WORK/wrk-bare.txt" | cut -d= -f2)
echo "ratio auth/open = $(python3 -c "print(round($a/$o, 3))")  (auth and limits cost $(python3 -c "print(round(100*(1-$a/$o), 1))")% of throughput)"
echo "ratio auth/bare = $(python3 -c "print(round($a/$b, 3))")"
echo "peak RSS (KiB) of the auth server: $(grep VmHWM /proc/$(pgrep -f "target/$PROFILE/linecast-api" | head -1)/status | awk '{print $2}')"
# Burst above the per-second limit on ONE key: every refusal must be a 429
# and the successes about 50 per second.
one=$(head -1 "$WORK/keys.txt")
burst=$(taskset -c 1 wrk -t1 -c 8 -d 3s -H "X-API-Key: $one" --latency -s bench/status_count.lua "http://127.0.0.1:$PORT_AUTH$first" | grep STATUS)
echo "burst on one key for 3 s: $burst"
ok_count=$(echo "$burst" | sed -n 's/.*s200=\([0-9]*\).*/\1/p')
other=$(echo "$burst" | sed -n 's/.*other=\([0-9]*\).*/\1/p')
if [ "$other" != 0 ] || [ "$ok_count" -gt 200 ]; then echo "FAIL: burst let through $ok_count or answered other statuses ($other)"; exit 1; fi
sleep 2  # one flush interval, so the database has every count
echo "usage counted for the bench customer: $("$ADMIN" customers show --database-url "$DB" --email bench@linecast.local --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["usage"]["monthly_requests"])')"
