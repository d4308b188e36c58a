#!/usr/bin/env bash
# Two linecast builds head to head on the authenticated hit, per server CPU
# second, in one run: the question "does this change cost the hit path
# more than X%?" answered without a bare handler in between.
#
#   bench/ab.sh A_BINARY B_BINARY [DURATION_S] [CONNECTIONS]
#
# Both servers get the very same database (one copy each, made after the
# customers and keys are created) and run side by side, pinned to core 0;
# wrk runs on core 1. Each round measures A then B, or B then A (the order
# alternates, so a drift of the machine within a round falls on both
# sides alike), for DURATION_S (default 5) seconds each, after WARM
# seconds of warm-up. A round's figure is B's requests per server CPU
# second over A's. Prints every round's ratio, their median, mean and
# spread, and how many rounds B lost. Run it both ways (A and B swapped):
# on one host, the two orders' B/A medians were 11 points apart for one
# pair of builds and 7 for another; their geometric mean cancels what
# belongs to the side
# (bench/RESULTS.md, "The batch read front to back").
#
# Environment:
#   ROUNDS=12        rounds (each one A run and one B run per encoding)
#   ENCODINGS="identity gzip"
#   KEYS=4000        API keys, dealt among CUSTOMERS customers
#   CUSTOMERS=1000   the request log stores at most 10,000 rows per customer
#                    and day: 1,000 customers take 10 million, so every
#                    request of a run stores its row (the last line says
#                    how many were offered and how many stored)
#   WARM=1           seconds of warm-up before each run
#   SETTLE=12        seconds waited after the last round, before each
#                    server's CPU is read (the request log's hold and a
#                    round, with a margin)
#   PATHS            as bench/load.sh (default the nba predictions)
#   ADMIN_BINARY     linecast-admin that creates the customers and keys
#                    (default target/dist/linecast-admin)
#   STATE=dir        keep the prepared customers and keys there (and with
#                    PG_URL, in the database linecast_ab_template) and
#                    reuse them on the next run with the same STATE
#   PG_URL           a PostgreSQL server (postgres://user@host:port, a user
#                    who may create databases): each server gets a database
#                    of its own there (linecast_ab_a, linecast_ab_b, copies
#                    of the prepared one, dropped at the end) instead of
#                    its SQLite file, as a deployment does; the demo store
#                    stays in the var dir. With PG_CORE=<core> every
#                    PostgreSQL process is pinned to that core for the run
#                    (as root; set back to every core at the end), so the
#                    servers' core runs only the servers.
#
# Needs wrk, curl and python3 (and psql with PG_URL).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/keys.sh
A=${1:?usage: bench/ab.sh A_BINARY B_BINARY [DURATION_S] [CONNECTIONS]}
B=${2:?usage: bench/ab.sh A_BINARY B_BINARY [DURATION_S] [CONNECTIONS]}
DURATION=${3:-5}
CONNECTIONS=${4:-64}
ROUNDS=${ROUNDS:-12}
ENCODINGS=${ENCODINGS:-identity gzip}
KEYS=${KEYS:-4000}
CUSTOMERS=${CUSTOMERS:-1000}
WARM=${WARM:-1}
export PATHS=${PATHS:-/api/v1/predictions/nba/won_on_points}
ADMIN=${ADMIN_BINARY:-${CARGO_TARGET_DIR:-target}/dist/linecast-admin}
PORT_A=18191
PORT_B=18192
WORK=$(mktemp -d)
PG_URL=${PG_URL:-}
PG_CORE=${PG_CORE:-}
pg_pin() { # cores
  [ -n "$PG_CORE" ] || return 0
  for p in $(pgrep -x postgres; pgrep -f '^postgres:'); do taskset -a -p -c "$1" "$p" >/dev/null 2>&1 || true; done
}
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  wait 2>/dev/null || true
  pg_pin "0-$(($(nproc --all) - 1))"
  if [ -n "$PG_URL" ]; then
    local keep=linecast_ab_template db
    # Without STATE the prepared database is not kept either.
    [ -n "${STATE:-}" ] || keep=
    for db in linecast_ab_a linecast_ab_b linecast_ab_template; do
      [ "$db" = "$keep" ] || psql -q "$PG_URL/postgres" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
    done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
export LINECAST_NOW=${LINECAST_NOW:-2026-11-21T17:00:00Z} RUST_LOG=warn LINECAST_PUBLIC_RATE=0
declare -A PID

fail() {
  echo "FAIL: $*" >&2
  for log in "$WORK"/server-*.log; do [ -f "$log" ] && { echo "--- $log" >&2; tail -20 "$log" >&2; }; done
  exit 1
}

# A server's database: the SQLite file in its var dir, or the PostgreSQL
# database named.
db_url() { # var_dir pg_database
  if [ -n "$PG_URL" ]; then echo "$PG_URL/$2"; else echo "sqlite://$1/linecast.db?mode=rwc"; fi
}
pg() { PGOPTIONS='-c client_min_messages=warning' psql -q -v ON_ERROR_STOP=1 "$PG_URL/postgres" -c "$1" >/dev/null; }

start() { # port binary var_dir pg_database
  local port=$1 binary=$2 var=$3 db=()
  curl -s -o /dev/null "http://127.0.0.1:$port/" && fail "port $port is already answering"
  [ -n "$PG_URL" ] && db=(LINECAST_DATABASE_URL="$(db_url "$var" "$4")" LINECAST_DEMO=true)
  env LINECAST_BIND=127.0.0.1:$port LINECAST_VAR_DIR="$var" "${db[@]}" taskset -c 0 "$binary" >"$WORK/server-$port.log" 2>&1 &
  PID[$port]=$!
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/api/v1/liveness" >/dev/null && return 0
    kill -0 "${PID[$port]}" 2>/dev/null || fail "server on $port exited"
    sleep 0.2
  done
  fail "server on $port did not start"
}

stop() { kill "${PID[$1]}" 2>/dev/null || true; wait "${PID[$1]}" 2>/dev/null || true; }

# The demo data, the customers and the keys, made once by A (or kept in
# STATE from a run before); each server starts on a copy of the same files
# (and of the same database).
PREP=${STATE:-$WORK/state}
pg_pin "$PG_CORE"
prepared() {
  [ -f "$PREP/keys.txt" ] || return 1
  [ -z "$PG_URL" ] || [ "$(psql -qtA "$PG_URL/postgres" -c "select count(*) from pg_database where datname = 'linecast_ab_template'")" = 1 ]
}
if ! prepared; then
  rm -rf "$PREP"
  mkdir -p "$PREP"
  DB=$(db_url "$PREP/var" linecast_ab_template)
  if [ -n "$PG_URL" ]; then
    pg "DROP DATABASE IF EXISTS linecast_ab_template"
    pg "CREATE DATABASE linecast_ab_template"
    "$ADMIN" migrate --database-url "$DB" >/dev/null
  fi
  start $PORT_A "$A" "$PREP/var" linecast_ab_template
  "$ADMIN" migrate --database-url "$DB" >/dev/null
  issue_keys "$ADMIN" "$DB" "$CUSTOMERS" "$KEYS" "$PREP/keys.tmp" || fail "the bench keys were not issued"
  stop $PORT_A
  mv "$PREP/keys.tmp" "$PREP/keys.txt"
fi
[ "$(wc -l <"$PREP/keys.txt")" = "$KEYS" ] || fail "$PREP holds $(wc -l <"$PREP/keys.txt") keys, not KEYS=$KEYS"
for side in a b; do
  cp -a "$PREP/var" "$WORK/var-$side"
  if [ -n "$PG_URL" ]; then
    pg "DROP DATABASE IF EXISTS linecast_ab_$side"
    pg "CREATE DATABASE linecast_ab_$side TEMPLATE linecast_ab_template"
  fi
done
start $PORT_A "$A" "$WORK/var-a" linecast_ab_a
start $PORT_B "$B" "$WORK/var-b" linecast_ab_b
export KEYS_FILE="$PREP/keys.txt"
one=$(head -1 "$KEYS_FILE")
first=${PATHS%%,*}
for enc in identity gzip; do
  ae=(); [ "$enc" = gzip ] && ae=(-H 'Accept-Encoding: gzip')
  a=$(curl -s "${ae[@]}" -H "X-API-Key: $one" "http://127.0.0.1:$PORT_A$first" | sha256sum)
  b=$(curl -s "${ae[@]}" -H "X-API-Key: $one" "http://127.0.0.1:$PORT_B$first" | sha256sum)
  [ "$a" = "$b" ] || fail "A and B answer $first ($enc) with different bytes"
done

CLK_TCK=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# Requests per server CPU second of one run against `port`.
measure() { # port encoding
  local port=$1 enc=$2 url="http://127.0.0.1:$1" before after result rps secs
  ENCODING=$enc taskset -c 1 wrk -t1 -c 8 -d "${WARM}s" -s bench/rotate_keys.lua "$url" >/dev/null
  before=$(cpu_ticks "${PID[$port]}")
  result=$(ENCODING=$enc taskset -c 1 wrk -t1 -c "$CONNECTIONS" -d "${DURATION}s" -s bench/rotate_keys.lua "$url" | grep RESULT) \
    || fail "port $port $enc: no RESULT line"
  after=$(cpu_ticks "${PID[$port]}")
  rps=$(echo "$result" | sed -n 's/.*rps=\([0-9.]*\).*/\1/p')
  secs=$(echo "$result" | sed -n 's/.*duration_s=\([0-9.]*\).*/\1/p')
  [ "$(echo "$result" | sed -n 's/.*errors=\([0-9]*\).*/\1/p')" = 0 ] || fail "port $port $enc: socket errors: $result"
  [ "$(echo "$result" | sed -n 's/.*non2xx=\([0-9]*\).*/\1/p')" = 0 ] || fail "port $port $enc: answers >= 400 (raise KEYS): $result"
  python3 -c "print(round($rps * $secs))" >>"$WORK/served-$port"
  python3 -c "print(round($rps / max(($after - $before) / $CLK_TCK / $secs, 0.001), 1))"
}

echo "A: $A"
echo "B: $B"
echo "$ROUNDS rounds, $DURATION s per run, $CONNECTIONS connections, $KEYS keys of $CUSTOMERS customers, paths: $PATHS"
for enc in $ENCODINGS; do
  : >"$WORK/ratios-$enc"
done
for round in $(seq 1 "$ROUNDS"); do
  for enc in $ENCODINGS; do
    if [ $((round % 2)) = 1 ]; then
      a=$(measure $PORT_A "$enc"); b=$(measure $PORT_B "$enc")
    else
      b=$(measure $PORT_B "$enc"); a=$(measure $PORT_A "$enc")
    fi
    r=$(python3 -c "print(round($b / $a, 4))")
    echo "$r" >>"$WORK/ratios-$enc"
    echo "round $round $enc: A $a, B $b req/server CPU s, B/A $r"
  done
done
for enc in $ENCODINGS; do
  python3 - "$enc" "$WORK/ratios-$enc" <<'PY'
import statistics, sys
enc, path = sys.argv[1], sys.argv[2]
r = sorted(float(x) for x in open(path) if x.strip())
lost = sum(1 for x in r if x < 1)
q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
print(f"B/A per server CPU second, {enc}, {len(r)} rounds: median {statistics.median(r):.4f}, "
      f"mean {statistics.mean(r):.4f}, quartiles {q[0]:.4f}..{q[2]:.4f}, min {r[0]:.4f}, max {r[-1]:.4f}, "
      f"B lower in {lost} of {len(r)}")
PY
done
# The request log holds requests 10 s before a round writes them: wait for
# that, so each server's CPU below includes the writing of its last rows.
sleep "${SETTLE:-12}"

# Where each server's CPU went, by thread (the workers answer requests; the
# main thread runs the flush round; sqlx's worker runs SQLite).
for side in a b; do
  port=$PORT_A; [ $side = b ] && port=$PORT_B
  python3 - "${PID[$port]}" "$CLK_TCK" "${side^^}" "$WORK/served-$port" <<'PY'
import glob, sys
pid, tck, side = sys.argv[1], int(sys.argv[2]), sys.argv[3]
by = {}
for stat in glob.glob(f"/proc/{pid}/task/*/stat"):
    text = open(stat).read()
    name = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    by[name] = by.get(name, 0) + (int(fields[11]) + int(fields[12])) / tck
served = sum(int(x) for x in open(sys.argv[4]) if x.strip())
print(f"{side} served {served} measured requests (warm-ups not counted); CPU seconds by thread, warm-ups included: " + ", ".join(f"{n} {s:.1f}" for n, s in sorted(by.items(), key=lambda x: -x[1]) if s >= 0.05))
# The whole run's figure: every thread's CPU, the start and the warm-ups
# included, over the requests measured. Unlike a round's ratio it charges
# each server with work it did while the other was measured (a write of
# held requests).
print(f"{side} whole run: {sum(by.values()) / max(served, 1) * 1e6:.2f} CPU us per measured request")
PY
done
for side in a b; do
  if [ -n "$PG_URL" ]; then
    n=$(psql -qtA "$PG_URL/linecast_ab_$side" -c "select (select coalesce(sum(offered), 0) from request_log_days) || ' offered, ' || (select coalesce(sum(requests), 0) from request_log_segments) || ' stored'")
    echo "request log of ${side^^}: $n"
    continue
  fi
  n=$(python3 - "$WORK/var-$side/linecast.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
one = lambda sql: db.execute(sql).fetchone()[0]
stored = one("select coalesce(sum(requests), 0) from request_log_segments") if "request_log_segments" in tables else 0
offered = one("select coalesce(sum(offered), 0) from request_log_days") if "request_log_days" in tables else 0
print(f"{offered} offered, {stored} stored")
PY
)
  echo "request log of ${side^^}: $n"
done
if grep -l -E 'panicked|ERROR' "$WORK"/server-*.log >/dev/null 2>&1; then fail "a server logged errors"; fi
