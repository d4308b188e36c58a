#!/usr/bin/env bash
# A sequential client at real size: a release server in production mode over
# the full data profile, one key, and bench/walk.py walking the ncaab
# 2025-26 won_on_points season (5,810 rows, 59 pages of 100) one call after
# the other: first cold, then warm, then three seasons back to back (past
# the burst: the sustained rate shows). Server pinned to core 0, client to
# core 1.
#
#   bench/walk.sh [FULL_STORE]
#
# FULL_STORE (default /tmp/full) is generated when missing with
# `linecast-admin fixtures generate --profile full`. CARGO_TARGET_DIR picks
# the binaries (default target), so an older checkout can be measured the
# same way. Prints one WALK line per walk (calls, statuses, calls per second).
set -uo pipefail
cd "$(dirname "$0")/.."
STORE=${1:-/tmp/full}
TARGET=${CARGO_TARGET_DIR:-target}
PORT=${PORT:-18290}
cargo build --release -q -p linecast-api -p linecast-admin --bins || exit 1
API=$TARGET/release/linecast-api
ADMIN=$TARGET/release/linecast-admin
[ -d "$STORE/seasons" ] || "$ADMIN" fixtures generate --profile full --out "$STORE" --today 2026-11-21 || exit 1
WORK=$(mktemp -d)
DB="sqlite://$WORK/walk.db?mode=rwc"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
LINECAST_STORE_URL="file://$STORE" LINECAST_DATABASE_URL="$DB" LINECAST_NOW=2026-11-21T17:00:00Z \
  LINECAST_BIND=127.0.0.1:$PORT RUST_LOG=warn taskset -c 0 "$API" >"$WORK/server.log" 2>&1 &
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/api/v1/liveness" >/dev/null && break; sleep 0.2; done
"$ADMIN" customers create --database-url "$DB" --email walk@linecast.local --name Walk >/dev/null || exit 1
KEY=$("$ADMIN" keys issue --database-url "$DB" --customer-email walk@linecast.local --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])') || exit 1
status=0
walk() { taskset -c 1 python3 bench/walk.py "http://127.0.0.1:$PORT" "$KEY" ncaab won_on_points 2025-26 100 "$1" || status=1; }
echo "cold:"; walk 1
sleep 3  # the bucket refills (100 tokens at 50/s)
echo "warm:"; walk 1
sleep 3
echo "three seasons back to back:"; walk 3
exit $status
