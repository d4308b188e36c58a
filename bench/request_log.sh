#!/usr/bin/env bash
# What a stored request-log row costs, measured on one server: the
# authenticated hit under load, every request under its customer's daily
# cap, so each one the buffer takes is stored.
#
#   bench/request_log.sh [DURATION_S] [CONNECTIONS]
#
# Starts linecast (dist build, demo data, CUSTOMERS customers and KEYS keys)
# pinned to core 0, drives it with wrk on core 1 for DURATION_S (default
# 20) seconds, waits for the last write of the log (its requests are held
# 10 s, then a round writes them), and prints:
# - requests served, rows offered and stored, about how many the buffer dropped (answered minus offered);
# - the segments written and their bytes (`body` and `packed`) per stored row;
# - CPU seconds by thread over the measured run and the last flush
#   (workers answer requests, the main thread runs the flush round, sqlx's
#   worker runs SQLite);
# - the flush round's and SQLite's CPU microseconds per stored row, and
#   the workers' per request.
#
# Environment:
#   API_BINARY       the server (default target/dist/linecast-api)
#   ADMIN_BINARY     creates the customers and keys (default target/dist/linecast-admin)
#   CUSTOMERS=1000, KEYS=4000
#   SETTLE=12        seconds waited after the warm-up and after the run,
#                    so every request of each is written (the hold and a
#                    round, with a margin)
#   STATE=dir        keep the prepared database there and reuse it on the
#                    next run (customers and keys take minutes to create);
#                    each run starts on a fresh copy of it
#   PERF=file        also record a `perf record -e cpu-clock -g` profile of
#                    (PERF_FREQ samples a second, default 4000; PERF_GRAPH=
#                    leaves out the call graphs, which cost the threads that
#                    switch often)
#                    the server during the measured run into file
#
# Needs wrk, curl and python3 (and perf for PERF).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/keys.sh
DURATION=${1:-20}
CONNECTIONS=${2:-64}
CUSTOMERS=${CUSTOMERS:-1000}
KEYS=${KEYS:-4000}
TARGET=${CARGO_TARGET_DIR:-target}
API=${API_BINARY:-$TARGET/dist/linecast-api}
ADMIN=${ADMIN_BINARY:-$TARGET/dist/linecast-admin}
PORT=18193
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
export LINECAST_NOW=${LINECAST_NOW:-2026-11-21T17:00:00Z} RUST_LOG=warn LINECAST_PUBLIC_RATE=0
export PATHS=${PATHS:-/api/v1/predictions/nba/won_on_points}

fail() {
  echo "FAIL: $*" >&2
  [ -f "$WORK/server.log" ] && tail -20 "$WORK/server.log" >&2
  exit 1
}

start() { # var_dir
  env LINECAST_BIND=127.0.0.1:$PORT LINECAST_VAR_DIR="$1" taskset -c 0 "$API" >"$WORK/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$PORT/api/v1/liveness" >/dev/null && return 0
    kill -0 "$SERVER" 2>/dev/null || fail "the server exited"
    sleep 0.2
  done
  fail "the server did not start"
}

stop() { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }

curl -s -o /dev/null "http://127.0.0.1:$PORT/" && fail "port $PORT is already answering"
STATE=${STATE:-$WORK/state}
if [ ! -f "$STATE/keys.txt" ]; then
  mkdir -p "$STATE"
  start "$STATE/var"
  DB="sqlite://$STATE/var/linecast.db?mode=rwc"
  issue_keys "$ADMIN" "$DB" "$CUSTOMERS" "$KEYS" "$STATE/keys.tmp" || fail "the bench keys were not issued"
  stop
  mv "$STATE/keys.tmp" "$STATE/keys.txt"
fi
cp -a "$STATE/var" "$WORK/var"
start "$WORK/var"
export KEYS_FILE="$STATE/keys.txt"
url="http://127.0.0.1:$PORT"
taskset -c 1 wrk -t1 -c 8 -d 1s -s bench/rotate_keys.lua "$url" >/dev/null
# CPU seconds by thread name, summed over threads of one name.
threads() {
  python3 - "$SERVER" "$(getconf CLK_TCK)" <<'PY'
import glob, json, sys
pid, tck = sys.argv[1], int(sys.argv[2])
by, switches = {}, {}
for task in glob.glob(f"/proc/{pid}/task/*"):
    text = open(f"{task}/stat").read()
    # The main thread carries the binary's name: called `main` here.
    name = "main" if task.endswith(f"/{pid}") else text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    by[name] = by.get(name, 0) + (int(fields[11]) + int(fields[12])) / tck
    by[name + " (system)"] = by.get(name + " (system)", 0) + int(fields[12]) / tck
    for line in open(f"{task}/status"):
        if line.endswith("ctxt_switches:\t" + line.split("\t")[-1]) and "ctxt_switches" in line:
            switches[name] = switches.get(name, 0) + int(line.split()[-1])
print(json.dumps([by, switches]))
PY
}
# Rows offered and stored, segments and their bytes, so far.
logged() {
  python3 - "$WORK/var/linecast.db" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
offered = db.execute("select coalesce(sum(offered), 0) from request_log_days").fetchone()[0]
stored, segments, body = db.execute(
    "select coalesce(sum(requests), 0), count(*), "
    "coalesce(sum(length(body) + coalesce(length(packed), 0)), 0) from request_log_segments").fetchone()
print(json.dumps([offered, stored, segments, body]))
PY
}
SETTLE=${SETTLE:-12}
sleep "$SETTLE" # the warm-up's requests written
before=$(threads); logged_before=$(logged)
if [ -n "${PERF:-}" ]; then
  perf record -q -e cpu-clock -F "${PERF_FREQ:-4000}" ${PERF_GRAPH--g} -p "$SERVER" -o "$PERF" -- sleep "$DURATION" 2>/dev/null &
  RECORDER=$!
fi
result=$(taskset -c 1 wrk -t1 -c "$CONNECTIONS" -d "${DURATION}s" -s bench/rotate_keys.lua "$url" | grep RESULT) \
  || fail "no RESULT line"
[ -n "${PERF:-}" ] && wait "$RECORDER"
[ "$(echo "$result" | sed -n 's/.*non2xx=\([0-9]*\).*/\1/p')" = 0 ] || fail "answers >= 400 (raise KEYS): $result"
sleep "$SETTLE" # the run's requests written
after=$(threads); logged_after=$(logged)
python3 - "$before" "$after" "$logged_before" "$logged_after" "$result" <<'PY'
import json, re, sys
(before, switched_before), (after, switched_after), result = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[5]
offered, stored, segments, body = (b - a for a, b in zip(json.loads(sys.argv[3]), json.loads(sys.argv[4])))
by = {n: s - before.get(n, 0.0) for n, s in after.items()}
rps = float(re.search(r"rps=([0-9.]+)", result).group(1))
secs = float(re.search(r"duration_s=([0-9.]+)", result).group(1))
served = int(re.search(r"requests=([0-9]+)", result).group(1))
# Every admitted request is offered to the buffer; what the buffer did not
# take was dropped (requests wrk had not finished count as answered).
dropped = max(served - offered, 0)
print(f"served {served} requests in {secs:.1f} s ({rps:.0f}/s); request log: {offered} offered, {stored} stored "
      f"in {segments} segments, about {dropped} dropped at the buffer")
if stored:
    print(f"segment bytes (body and packed) per stored row: {body / stored:.1f}; rows per segment: {stored / segments:.1f}")
print("CPU seconds by thread over the measured run and its last flush (of which in the kernel): "
      + ", ".join(f"{n} {s:.2f}" for n, s in sorted(by.items(), key=lambda x: -x[1]) if s >= 0.01))
print("context switches by thread: "
      + ", ".join(f"{n} {s - switched_before.get(n, 0)}" for n, s in sorted(switched_after.items()) if s - switched_before.get(n, 0)))
flush = by.get("main", 0.0)
sqlite = sum(s for n, s in by.items() if n.startswith("sqlx-sqlite") and not n.endswith("(system)"))
workers = sum(s for n, s in by.items() if n.startswith("actix-rt") and not n.endswith("(system)"))
if stored:
    print(f"per stored row: flush round {flush / stored * 1e6:.3f} us, SQLite {sqlite / stored * 1e6:.3f} us, "
          f"together {(flush + sqlite) / stored * 1e6:.3f} us; workers per request served {workers / served * 1e6:.3f} us")
PY
grep -E 'panicked|ERROR' "$WORK/server.log" >&2 && fail "the server logged errors"
exit 0
