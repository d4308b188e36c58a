#!/usr/bin/env bash
# Bulk export at real size: a release server in production mode over the
# full data profile (bench/lib/full_server.sh), then ncaab won_on_spread
# `season=all` (every archived season) as CSV and as Parquet, and one season
# of each, each timed cold (graded, rendered) and 20 times warm (served from
# the response cache) by bench/timed_get.py on core 1, with the body size
# and the server's RSS after each (VmRSS and VmHWM from /proc).
#
#   bench/export.sh [FULL_STORE]
set -uo pipefail
cd "$(dirname "$0")/.."
STORE=${1:-/tmp/full}
PORT=${PORT:-18292}
source bench/lib/full_server.sh
pid=$(pgrep -f "LINECAST_BIND=127.0.0.1:$PORT" | head -1)
pid=${pid:-$(pgrep -n -f "$API")}
rss() { awk '/VmRSS|VmHWM/ {printf "%s=%dMB ", $1, $2/1024} END {print ""}' "/proc/$pid/status"; }
echo "RSS before: $(rss)"
status=0
for path in \
  "/api/v1/results/ncaab/won_on_spread/export?season=all&format=csv" \
  "/api/v1/results/ncaab/won_on_spread/export?season=all&format=parquet" \
  "/api/v1/results/ncaab/won_on_spread/export?season=2025-26&format=csv" \
  "/api/v1/results/ncaab/won_on_spread/export?season=2025-26&format=parquet"; do
  taskset -c 1 python3 bench/timed_get.py "http://127.0.0.1:$PORT" "$KEY" "$path" 20 || status=1
  echo "RSS after: $(rss)"
  sleep 1  # the key's burst refills
done
exit $status
