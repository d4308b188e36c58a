#!/usr/bin/env bash
# A game's history and the history export at a season of releases: the
# dist server over the full profile (bench/lib/full_server.sh) with the
# artifacts cache at 1 MiB (LINECAST_CACHE_BYTES=8 MiB, artifacts 1/8), 2,160
# versions of the ncaab moneyline predictions (bench/season_releases.py)
# imported, then: one history cold and 20 warm (bench/timed_get.py), 80
# histories of distinct games at 40 in parallel, 80 unknown ids at 40 in
# parallel, and the RSS (VmRSS, VmHWM)
# around one `season=all` CSV export and two at once.
#
#   bench/history.sh [FULL_STORE]
set -uo pipefail
cd "$(dirname "$0")/.."
STORE=${1:-/tmp/full}
PORT=${PORT:-18293}
export LINECAST_CACHE_BYTES=${LINECAST_CACHE_BYTES:-8388608}
export LINECAST_NOW=2026-11-21T17:00:00Z
source bench/lib/full_server.sh
pid=$(pgrep -n -f "$API")
rss() { awk '/VmRSS|VmHWM/ {printf "%s=%dMB ", $1, $2/1024} END {print ""}' "/proc/$pid/status"; }
KEYPATH=predictions/ncaab/won_on_points.csv
python3 bench/season_releases.py "$STORE" "$KEYPATH" "$WORK/versions" 180
"$ADMIN" releases import "$WORK/versions" --store "file://$STORE" --database-url "$DB" | tail -1
BASE="http://127.0.0.1:$PORT"
ids=$(curl -sf -H "X-API-Key: $KEY" "$BASE/api/v1/predictions/ncaab/won_on_points?upcoming_only=false" \
  | python3 -c 'import json,sys; print(" ".join(g["game_id"] for g in json.load(sys.stdin)["games"]))')
first=${ids%% *}
echo "history of $first:"
taskset -c 1 python3 bench/timed_get.py "$BASE" "$KEY" "/api/v1/games/$first/history?model_type=won_on_points" 20
echo "unknown id:"
curl -s -o /dev/null -w "%{http_code} %{time_total}s\n" -H "X-API-Key: $KEY" \
  "$BASE/api/v1/games/ncaab-20261121-nobody-no_team/history?model_type=won_on_points"
sleep 1
echo "80 histories of distinct games (cold) at 40 in parallel:"
taskset -c 1 python3 - "$BASE" "$KEY" $ids <<'PY'
import concurrent.futures, sys, time, urllib.request
base, key, ids = sys.argv[1], sys.argv[2], sys.argv[4:84]
def get(i):
    req = urllib.request.Request(f"{base}/api/v1/games/{i}/history?model_type=won_on_points", headers={"X-API-Key": key})
    with urllib.request.urlopen(req) as r:
        r.read()
        return r.status
t = time.perf_counter()
with concurrent.futures.ThreadPoolExecutor(40) as pool:
    statuses = list(pool.map(get, ids))
print(f"{len(statuses)} calls, statuses {sorted(set(statuses))}, {time.perf_counter() - t:.3f} s in all")
PY
sleep 1
echo "80 unknown ids at 40 in parallel (the review's reproduction):"
taskset -c 1 python3 - "$BASE" "$KEY" <<'PY'
import concurrent.futures, sys, time, urllib.error, urllib.request
base, key = sys.argv[1], sys.argv[2]
def get(i):
    req = urllib.request.Request(f"{base}/api/v1/games/ncaab-20261121-nobody{i}-no_team/history?model_type=won_on_points", headers={"X-API-Key": key})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
t = time.perf_counter()
with concurrent.futures.ThreadPoolExecutor(40) as pool:
    statuses = list(pool.map(get, range(80)))
print(f"{len(statuses)} calls, statuses {sorted(set(statuses))}, {time.perf_counter() - t:.3f} s in all")
PY
sleep 1
# The peak resident set of each export step, from a reset high-water mark
# (`clear_refs` 5): added = VmHWM after - VmRSS before.
kb() { awk -v f="$1" '$1 == f":" {print $2}' "/proc/$pid/status"; }
peak_from_here() { echo 5 > "/proc/$pid/clear_refs"; kb VmRSS; }
added() { echo "VmRSS before $(($1 / 1024)) MB, peak $(($(kb VmHWM) / 1024)) MB: added $((($(kb VmHWM) - $1) / 1024)) MB"; }
EXPORT="$BASE/api/v1/predictions/ncaab/won_on_points/history/export?format=csv"
before=$(peak_from_here)
curl -s -o /dev/null -w "export (csv, all): %{http_code} %{size_download} bytes %{time_total}s\n" -H "X-API-Key: $KEY" "$EXPORT"
echo "one export: $(added "$before")"
curl -s -o /dev/null -w "again (served from its file): %{http_code} %{size_download} bytes %{time_total}s\n" -H "X-API-Key: $KEY" "$EXPORT"
# Two at once, neither made yet: the Parquet file and the CSV of the one
# season (the same rows under another key).
before=$(peak_from_here)
curl -s -o /dev/null -w "a (parquet, all): %{http_code} %{size_download} bytes %{time_total}s\n" -H "X-API-Key: $KEY" "${EXPORT/csv/parquet}" & a=$!
curl -s -o /dev/null -w "b (csv, 2026-27): %{http_code} %{size_download} bytes %{time_total}s\n" -H "X-API-Key: $KEY" "$EXPORT&season=2026-27" & b=$!
wait $a $b
echo "two at once: $(added "$before")"
