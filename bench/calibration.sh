#!/usr/bin/env bash
# Calibration at real size: a release server in production mode over the
# full data profile (bench/lib/full_server.sh), then, for the ncaab
# won_on_spread 2025-26 season (5,810 rows) and the nba moneyline one, the
# first call (cold: graded, computed, rendered) and 50 warm ones of the JSON
# payload, the `reconstructed` source and the SVG diagram, timed by
# bench/timed_get.py on core 1.
#
#   bench/calibration.sh [FULL_STORE]
set -uo pipefail
cd "$(dirname "$0")/.."
STORE=${1:-/tmp/full}
PORT=${PORT:-18291}
source bench/lib/full_server.sh
status=0
for path in \
  "/api/v1/models/ncaab/won_on_spread/calibration?season=2025-26" \
  "/api/v1/models/ncaab/won_on_spread/calibration?season=2025-26&source=reconstructed" \
  "/api/v1/models/ncaab/won_on_spread/calibration?season=2025-26&format=svg" \
  "/api/v1/models/nba/won_on_points/calibration?season=2025-26"; do
  taskset -c 1 python3 bench/timed_get.py "http://127.0.0.1:$PORT" "$KEY" "$path" 50 || status=1
  sleep 2  # the key's burst refills
done
exit $status
