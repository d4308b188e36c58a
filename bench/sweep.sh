#!/usr/bin/env bash
# Memory and full-season latency: start a release server over the full demo
# store, report RSS, sweep every sport, model type and season through every
# history endpoint, report peak RSS (VmHWM), then time full-season pages
# (limit=100000, gzip) with curl.
#
#   bench/sweep.sh
set -euo pipefail
cd "$(dirname "$0")/.."
NOW=${LINECAST_NOW:-2026-11-21T17:00:00Z}
PORT=18191
cargo build --release -q -p linecast-api
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
export LINECAST_VAR_DIR="$WORK/var" LINECAST_NOW="$NOW" RUST_LOG=warn LINECAST_BIND=127.0.0.1:$PORT
start=$(date +%s.%N)
target/release/linecast-api >"$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PORT/api/v1/liveness" >/dev/null && break; sleep 0.1; done
echo "first start (demo store generated): $(python3 -c "print(round($(date +%s.%N) - $start, 2))") s; store size $(du -sh "$WORK/var/store" | cut -f1)"
rss() { grep "$1" /proc/$PID/status | awk '{print $2}'; }
echo "RSS after start: $(rss VmRSS) KiB"
KEY=$(cat "$WORK/var/demo-key.txt")
B="http://127.0.0.1:$PORT/api/v1"
n=0
sleep_if_needed() { n=$((n + 1)); if (( n % 45 == 0 )); then sleep 1; fi; }  # stay under 50 req/s per key
for s in mlb nba nfl nhl ncaaf ncaab; do
  for m in over_under won_on_points won_on_spread; do
    for path in "predictions/$s/$m?upcoming_only=false" "summary/$s/$m" "models/$s/$m/tracking" "results/$s/$m/team-form" \
                "results/$s/$m/rolling" "results/$s/$m/density" "strategies/$s/$m" "strategies/$s/$m?accounting=recorded_v2"; do
      curl -s -o /dev/null -H "X-API-Key: $KEY" "$B/$path"; sleep_if_needed
    done
    for season in $(curl -s -H "X-API-Key: $KEY" "$B/results/$s/$m/seasons" | python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["seasons"]))'); do
      curl -s -o /dev/null -H "X-API-Key: $KEY" "$B/results/$s/$m?season=$season&limit=100000"; sleep_if_needed
      curl -s -o /dev/null -H "X-API-Key: $KEY" "$B/models/$s/$m/tracking?season=$season"; sleep_if_needed
    done
  done
done
echo "requests in sweep: $n"
echo "RSS after sweep: $(rss VmRSS) KiB; peak (VmHWM): $(rss VmHWM) KiB"
# Full-season page latency, gzip, warm cache: 20 samples.
season=$(curl -s -H "X-API-Key: $KEY" "$B/results/mlb/won_on_points/seasons" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seasons"][1])')
for _ in $(seq 1 20); do
  curl -s -o /dev/null --compressed -w '%{time_total}\n' -H "X-API-Key: $KEY" "$B/results/mlb/won_on_points?season=$season&limit=100000"
  sleep 0.05
done | sort -n | awk '{a[NR]=$1} END {printf "full season mlb %s (limit=100000, gzip): p50 %.1f ms, max %.1f ms over %d requests\n", "'"$season"'", a[int((NR+1)/2)]*1000, a[NR]*1000, NR}'
bytes=$(curl -s --compressed -H "X-API-Key: $KEY" "$B/results/mlb/won_on_points?season=$season&limit=100000" | wc -c)
gz=$(curl -s -H 'Accept-Encoding: gzip' -H "X-API-Key: $KEY" "$B/results/mlb/won_on_points?season=$season&limit=100000" | wc -c)
echo "payload: $bytes bytes JSON, $gz bytes gzip"
