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
PORT=${PORT:-18290}
source bench/lib/full_server.sh
status=0
walk() { taskset -c 1 python3 bench/walk.py "http://127.0.0.1:$PORT" "$KEY" ncaab won_on_points 2025-26 100 "$1" || status=1; }
echo "cold:"; walk 1
sleep 3  # the bucket refills (100 tokens at 50/s)
echo "warm:"; walk 1
sleep 3
echo "three seasons back to back:"; walk 3
exit $status
