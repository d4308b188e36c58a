#!/usr/bin/env bash
# Heavy reads and abuse limits, on a release server in production
# mode over the full data profile (bench/lib/full_server.sh), clients on
# core 1:
#   1. 40 connections request the largest export (ncaab won_on_spread,
#      season=all, CSV, identity) and never read: the server's RSS growth
#      after 3 s; then, past the stall timeout (5 s here), how many were cut;
#   2. one key cycles through uncached season=all exports (every sport,
#      market, format and coding) on 4 connections while another customer's
#      predictions and /health are timed;
#   3. 64 concurrent unknown keys from one address: how many were checked.
#
#   bench/heavy.sh [FULL_STORE] [STARVE_SECONDS]
set -uo pipefail
cd "$(dirname "$0")/.."
STORE=${1:-/tmp/full}
SECONDS_STARVE=${2:-30}
PORT=${PORT:-18293}
# The memory run measures one connection's cost, so the per-customer cap on
# downloads in flight is raised past 40 here (its default is 2).
export LINECAST_MAX_DOWNLOADS_PER_CUSTOMER=64 LINECAST_STALL_TIMEOUT_SECS=5
source bench/lib/full_server.sh
pid=$(pgrep -n -f "$API")
BASE=http://127.0.0.1:$PORT
LARGEST="/api/v1/results/ncaab/won_on_spread/export?season=all&format=csv"
size=$(curl -s -H "X-API-Key: $KEY" "$BASE$LARGEST" | wc -c)
echo "LARGEST $LARGEST bytes=$size"
taskset -c 1 python3 bench/heavy.py stalled "$BASE" "$KEY" "$LARGEST" 40 "$pid" 8
"$ADMIN" customers create --database-url "$DB" --email other@linecast.local --name Other >/dev/null || exit 1
OTHER=$("$ADMIN" keys issue --database-url "$DB" --customer-email other@linecast.local --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])') || exit 1
taskset -c 1 python3 bench/heavy.py starve "$BASE" "$KEY" "$OTHER" "$SECONDS_STARVE"
taskset -c 1 python3 bench/heavy.py badkeys "$BASE" 3
{ grep -c "stall timeout" "$WORK/server.log" || true; } | sed "s/^/STALL_LOG_LINES /"
