#!/usr/bin/env bash
# Memory and full-season latency: start a server (the dist profile) over a store,
# report RSS, time one full-season page (limit=100000, gzip) cold and warm,
# sweep every sport, model type and season through every history endpoint,
# report peak RSS (VmHWM), then time the full-season page again.
#
#   bench/sweep.sh
#
# Environment:
#   PROFILE_DATA=demo  (default) the server generates the demo store itself
#                      (demo mode); the latency page is an mlb season
#   PROFILE_DATA=full  generate the full profile (every league at real size,
#                      11 seasons) with `linecast-admin fixtures generate
#                      --profile full` into a store folder, start the server
#                      on it with LINECAST_DEMO=true (demo customer and key);
#                      the latency page is an ncaab season (~5,800 games)
#   FULL_STORE=/dir    with PROFILE_DATA=full: reuse (or keep) the store here
#                      instead of generating a temporary one
#   API_BINARY=path    the server to measure (default the build's)
#   LINECAST_CACHE_BYTES  passed through (default: the server's default)
#   CARGO_TARGET_DIR   where cargo puts binaries (default target)
#   PROFILE=debug      use debug binaries (proves the script; figures need dist)
set -euo pipefail
cd "$(dirname "$0")/.."
NOW=${LINECAST_NOW:-2026-11-21T17:00:00Z}
TODAY=${NOW%%T*}
PORT=18191
PROFILE_DATA=${PROFILE_DATA:-demo}
TARGET=${CARGO_TARGET_DIR:-target}
PROFILE=${PROFILE:-dist}
# The same targets as bench/load.sh: building the example enables dev-dependency
# features, so a different set would rebuild every crate between the scripts.
if [ "$PROFILE" = debug ]; then
  cargo build -q -p linecast-api -p linecast-admin --bins --example bare
else
  cargo build --profile "$PROFILE" -q -p linecast-api -p linecast-admin --bins --example bare
fi
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
export LINECAST_VAR_DIR="$WORK/var" LINECAST_NOW="$NOW" RUST_LOG=warn LINECAST_BIND=127.0.0.1:$PORT LINECAST_PUBLIC_RATE=0 LINECAST_METRICS_BIND=127.0.0.1:$((PORT + 1))
case $PROFILE_DATA in
  demo) LAT_SPORT=mlb ;;
  full)
    LAT_SPORT=ncaab
    STORE=${FULL_STORE:-$WORK/store}
    if [ -z "$(ls -A "$STORE" 2>/dev/null)" ]; then
      gen_start=$(date +%s.%N)
      "$TARGET/$PROFILE/linecast-admin" fixtures generate --profile full --out "$STORE" --today "$TODAY"
      echo "full profile generated in $(python3 -c "print(round($(date +%s.%N) - $gen_start, 1))") s: $(du -sh "$STORE" | cut -f1) on disk"
    fi
    export LINECAST_STORE_URL="file://$(cd "$STORE" && pwd)" LINECAST_DEMO=true
    ;;
  *) echo "PROFILE_DATA must be demo or full" >&2; exit 2 ;;
esac
start=$(date +%s.%N)
"${API_BINARY:-$TARGET/$PROFILE/linecast-api}" >"$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PORT/api/v1/liveness" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PORT/api/v1/liveness" >/dev/null || { cat "$WORK/server.log"; exit 1; }
echo "first start ($PROFILE_DATA store): $(python3 -c "print(round($(date +%s.%N) - $start, 2))") s; store size $(du -sh "${STORE:-$WORK/var/store}" | cut -f1)"
rss() { grep "$1" /proc/$PID/status | awk '{print $2}'; }
echo "RSS after start: $(rss VmRSS) KiB"
KEY=$(cat "$WORK/var/demo-key.txt")
B="http://127.0.0.1:$PORT/api/v1"

# Full-season page, gzip: the first request (cold: nothing parsed, graded or
# rendered for it yet), then 20 more (warm).
season=$(curl -sf -H "X-API-Key: $KEY" "$B/results/$LAT_SPORT/won_on_points/seasons" \
  | python3 -c 'import json,sys; s=sorted(json.load(sys.stdin)["seasons"]); print(s[-2] if len(s) > 1 else s[-1])')
PAGE="$B/results/$LAT_SPORT/won_on_points?season=$season&limit=100000"
latency() { # label
  for _ in $(seq 1 20); do
    curl -sf -o /dev/null --compressed -w '%{time_total}\n' -H "X-API-Key: $KEY" "$PAGE"
    sleep 0.05
  done | sort -n | awk '{a[NR]=$1} END {printf "full season %s %s (limit=100000, gzip), %s: p50 %.1f ms, max %.1f ms over %d requests\n", "'"$LAT_SPORT"'", "'"$season"'", "'"$1"'", a[int((NR+1)/2)]*1000, a[NR]*1000, NR}'
}
cold=$(curl -sf -o /dev/null --compressed -w '%{time_total}' -H "X-API-Key: $KEY" "$PAGE")
echo "full season $LAT_SPORT $season (limit=100000, gzip), cold (first request): $(python3 -c "print(round($cold*1000, 1))") ms"
latency "warm"
bytes=$(curl -sf --compressed -H "X-API-Key: $KEY" "$PAGE" | wc -c)
gz=$(curl -sf -H 'Accept-Encoding: gzip' -H "X-API-Key: $KEY" "$PAGE" | wc -c)
rows=$(curl -sf --compressed -H "X-API-Key: $KEY" "$PAGE" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(next((len(v) for v in d.values() if isinstance(v, list)), "?"))')
echo "payload: $bytes bytes JSON, $gz bytes gzip, $rows rows"

n=0
sleep_if_needed() { n=$((n + 1)); if (( n % 45 == 0 )); then sleep 1; fi; }  # stay under 50 req/s per key
bad=0
get() { # path
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-API-Key: $KEY" "$B/$1")
  [ "$code" = 200 ] || { bad=$((bad + 1)); echo "  $code $1"; }
  sleep_if_needed
}
sweep_start=$(date +%s)
for s in mlb nba nfl nhl ncaaf ncaab; do
  for m in over_under won_on_points won_on_spread; do
    for path in "predictions/$s/$m?upcoming_only=false" "summary/$s/$m" "models/$s/$m/tracking" "results/$s/$m/team-form" \
                "results/$s/$m/rolling" "results/$s/$m/density" "strategies/$s/$m" "strategies/$s/$m?accounting=recorded_v2"; do
      get "$path"
    done
    for season_ in $(curl -s -H "X-API-Key: $KEY" "$B/results/$s/$m/seasons" | python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["seasons"]))'); do
      get "results/$s/$m?season=$season_&limit=100000"
      get "models/$s/$m/tracking?season=$season_"
    done
  done
done
echo "requests in sweep: $n ($bad not 200) in $(( $(date +%s) - sweep_start )) s"
echo "RSS after sweep: $(rss VmRSS) KiB; peak (VmHWM): $(rss VmHWM) KiB (cache budget: ${LINECAST_CACHE_BYTES:-default})"
# What each share of the budget holds now (linecast_cache_* gauges).
curl -s "http://127.0.0.1:$((PORT + 1))/metrics" | python3 bench/cache_shares.py

latency "after the sweep"
