#!/usr/bin/env bash
# A local linecast cluster without containers, on loopback:
#
#   nginx (Debian's package)  ->  three linecast-api instances
#   PostgreSQL (a fresh database in the local server, migrated by
#   `linecast-admin migrate`, dropped at exit), which the instances reach
#   through a proxy a test can cut (deploy/local/cut_proxy.py)
#   Redis (the local server, a namespace of this run's own, its keys deleted at exit)
#   S3 (moto's server, from PyPI), holding a generated store
#
#   deploy/local/cluster.sh                 start, print the endpoints, run until Ctrl-C
#   deploy/local/cluster.sh CMD [ARGS...]   start, run CMD against it, stop; exit with CMD's status
#
# CMD sees CLUSTER_URL (the balancer), CLUSTER_KEY (a key of the customer
# ops@cluster.local), CLUSTER_RUN (this run's folder: instance-N.pid,
# instance-N.port, logs/), CLUSTER_ADMIN (linecast-admin),
# CLUSTER_DATABASE_URL, CLUSTER_REDIS_URL, CLUSTER_REDIS_NAMESPACE,
# CLUSTER_S3_ENDPOINT, CLUSTER_BUCKET, CLUSTER_STORE_PREFIX, CLUSTER_PG_PROXY
# (the control socket of the instances' PostgreSQL proxy: a line `cut`,
# `restore` or `stats`, see cut_proxy.py).
#
# Each instance runs under a supervisor that starts it again when it exits
# (SIGTERM, kill -9), as an orchestrator would, unless the file
# $CLUSTER_RUN/instance-N.hold exists (it waits until it is removed). nginx
# balances over the three with the proxy settings compose uses
# (deploy/nginx/proxy.conf): an instance that refuses or drops a connection
# is skipped and idempotent requests are retried on another; it does not
# poll readiness (nginx's open-source build has no active health checks).
#
# Settings (environment):
#   CLUSTER_BIN_DIR   where linecast-api and linecast-admin are ($CARGO_TARGET_DIR/debug, else target/debug)
#   CLUSTER_PG_URL    PostgreSQL server (postgres://postgres@127.0.0.1:5432)
#   CLUSTER_REDIS_URL Redis (redis://127.0.0.1:6379)
#   CLUSTER_PORT      the balancer's port (default: a free port)
#   CLUSTER_TODAY     the generated data's ET date (default: LINECAST_NOW's, else today)
#   CLUSTER_KEEP=1    keep the run folder (logs) after a clean exit
#   LINECAST_NOW, LINECAST_DRAIN_GRACE_SECS, LINECAST_WATCH_INTERVAL, RUST_LOG
#                     passed to the instances
# Everything started is stopped on exit; on failure the logs' folder is
# printed with the tail of each log.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN_DIR=${CLUSTER_BIN_DIR:-${CARGO_TARGET_DIR:-$REPO/target}/debug}
API=$BIN_DIR/linecast-api
ADMIN=$BIN_DIR/linecast-admin
PG_URL=${CLUSTER_PG_URL:-postgres://postgres@127.0.0.1:5432}
REDIS_URL=${CLUSTER_REDIS_URL:-redis://127.0.0.1:6379}
INSTANCES=3

RUN=$(mktemp -d "${TMPDIR:-/tmp}/linecast-cluster.XXXXXX")
LOGS=$RUN/logs
mkdir -p "$LOGS" "$RUN/nginx/linecast" "$RUN/nginx/tmp"
# nginx's workers (www-data when started as root) write their temp files here.
chmod 755 "$RUN" "$RUN/nginx"
chmod 1777 "$RUN/nginx/tmp"

ts() { date +%s.%N | cut -c1-14; }
say() { printf 'cluster: %s\n' "$*" >&2; }
die() {
  say "FAILED: $*"
  exit 1
}

ID="$(date +%Y%m%d%H%M%S)_$$"
DB_NAME="linecast_cluster_$ID"
NAMESPACE="linecast-cluster-$ID"
BUCKET="linecast-cluster"
PREFIX="store"
declare -A PORT METRICS SUPERVISOR
PIDS_TO_STOP=()
DB_CREATED=""
STATUS=0

# ------------------------------------------------------------------ cleanup

stop_pid() { # pid [signal]
  [ -n "${1:-}" ] && kill "-${2:-TERM}" "$1" 2>/dev/null || true
}

instance_pid() { cat "$RUN/instance-$1.pid" 2>/dev/null || true; }

cleanup() {
  STATUS=${STATUS:-$?}
  trap - EXIT INT TERM
  set +e
  touch "$RUN/stopping"
  rm -f "$RUN"/instance-*.hold
  # Instances: SIGTERM twice (the second ends the drain grace), so each
  # gives its leases back and flushes usage; SIGKILL after 30 s.
  local deadline=$(( $(date +%s) + 30 )) i alive
  for i in $(seq 1 $INSTANCES); do stop_pid "$(instance_pid "$i")"; done
  sleep 0.2
  for i in $(seq 1 $INSTANCES); do stop_pid "$(instance_pid "$i")"; done
  while :; do
    alive=0
    for i in $(seq 1 $INSTANCES); do
      if [ -n "${SUPERVISOR[$i]:-}" ] && kill -0 "${SUPERVISOR[$i]}" 2>/dev/null; then
        alive=1
        # A supervisor that restarted its instance just before the stop flag.
        stop_pid "$(instance_pid "$i")"
      fi
    done
    [ $alive = 0 ] && break
    if [ "$(date +%s)" -ge $deadline ]; then
      for i in $(seq 1 $INSTANCES); do stop_pid "$(instance_pid "$i")" KILL; stop_pid "${SUPERVISOR[$i]:-}" KILL; done
      break
    fi
    sleep 0.2
  done
  for pid in "${PIDS_TO_STOP[@]}"; do stop_pid "$pid"; done
  for pid in "${PIDS_TO_STOP[@]}"; do wait "$pid" 2>/dev/null; done
  if [ -n "$DB_CREATED" ]; then
    psql "$PG_URL/postgres" -qAt -c "DROP DATABASE IF EXISTS \"$DB_NAME\" WITH (FORCE)" >/dev/null 2>&1 \
      || say "could not drop database $DB_NAME"
  fi
  redis-cli -u "$REDIS_URL" --scan --pattern "$NAMESPACE:*" 2>/dev/null \
    | xargs -r -n 500 redis-cli -u "$REDIS_URL" UNLINK >/dev/null 2>&1
  if [ "$STATUS" != 0 ] && [ -z "$(find "$LOGS" -type f -size +0 2>/dev/null)" ]; then
    rm -rf "$RUN"
  elif [ "$STATUS" != 0 ]; then
    say "logs: $LOGS"
    for f in "$LOGS"/*.log; do
      [ -s "$f" ] || continue
      printf '\n----- %s (last 25 lines)\n' "$f" >&2
      tail -n 25 "$f" >&2
    done
  elif [ -z "${CLUSTER_KEEP:-}" ]; then
    rm -rf "$RUN"
  else
    say "kept $RUN"
  fi
  exit "$STATUS"
}
trap 'STATUS=$?; cleanup' EXIT
trap 'STATUS=130; exit 130' INT
trap 'STATUS=143; exit 143' TERM

# ------------------------------------------------------------------ checks

for tool in curl psql redis-cli python3 moto_server; do
  command -v "$tool" >/dev/null || die "$tool is not on PATH"
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || die "nginx is not installed (apt-get install -y nginx)"
[ -x "$API" ] && [ -x "$ADMIN" ] \
  || die "no linecast-api/linecast-admin in $BIN_DIR (cargo build -p linecast-api -p linecast-admin, or set CLUSTER_BIN_DIR)"
psql "$PG_URL/postgres" -qAt -c 'select 1' >/dev/null 2>&1 || die "PostgreSQL does not answer at $PG_URL"
[ "$(redis-cli -u "$REDIS_URL" ping 2>/dev/null)" = PONG ] || die "Redis does not answer at $REDIS_URL"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_http() { # url seconds what
  local deadline=$(( $(date +%s) + $2 ))
  until curl -fsS -m 2 -o /dev/null "$1" 2>/dev/null; do
    [ "$(date +%s)" -lt $deadline ] || die "$3 did not answer $1 within $2 s"
    sleep 0.2
  done
}

LB_PORT=${CLUSTER_PORT:-$(free_port)}
S3_PORT=$(free_port)
for i in $(seq 1 $INSTANCES); do
  PORT[$i]=$(free_port)
  METRICS[$i]=$(free_port)
  echo "${PORT[$i]}" >"$RUN/instance-$i.port"
done

# ------------------------------------------------------------------ PostgreSQL, Redis

psql "$PG_URL/postgres" -qAt -c "CREATE DATABASE \"$DB_NAME\"" >/dev/null || die "could not create database $DB_NAME"
DB_CREATED=1
DATABASE_URL="$PG_URL/$DB_NAME"
# The instances only check the schema, as in compose and Kubernetes:
# `linecast-admin migrate` applies it first.
"$ADMIN" migrate --database-url "$DATABASE_URL" >"$LOGS/migrate.log" 2>&1 || die "migrating the database failed"
say "database $DB_NAME (migrated), Redis namespace $NAMESPACE"

# The instances reach PostgreSQL through a proxy whose link a test can cut
# (deploy/local/cut_proxy.py, controlled on $CLUSTER_PG_PROXY); the
# operator's commands and the test's reads go to PostgreSQL directly.
PG_PROXY_PORT=$(free_port)
PG_PROXY_CONTROL=$RUN/pg-proxy.sock
read -r PG_HOST PG_PORT INSTANCE_DATABASE_URL < <(python3 -c '
import sys, urllib.parse as u
url, port, name = sys.argv[1:]
p = u.urlsplit(url)
user = p.netloc.rpartition("@")[0]
proxied = p._replace(netloc=(user + "@" if user else "") + "127.0.0.1:" + port, path="/" + name)
print(p.hostname or "127.0.0.1", p.port or 5432, u.urlunsplit(proxied))' "$PG_URL" "$PG_PROXY_PORT" "$DB_NAME")
python3 "$REPO/deploy/local/cut_proxy.py" "$PG_PROXY_PORT" "$PG_HOST" "$PG_PORT" "$PG_PROXY_CONTROL" >"$LOGS/pg-proxy.log" 2>&1 &
PIDS_TO_STOP+=($!)
for _ in $(seq 1 100); do [ -S "$PG_PROXY_CONTROL" ] && break; sleep 0.1; done
[ -S "$PG_PROXY_CONTROL" ] || die "the PostgreSQL proxy did not start"

# ------------------------------------------------------------------ object store

# The real script behind pyenv's shim, so the pid is the server's own.
MOTO=$(pyenv which moto_server 2>/dev/null || command -v moto_server)
"$MOTO" -H 127.0.0.1 -p "$S3_PORT" >"$LOGS/moto.log" 2>&1 &
PIDS_TO_STOP+=($!)
wait_http "http://127.0.0.1:$S3_PORT/" 60 "moto_server"
S3_ENDPOINT="http://127.0.0.1:$S3_PORT"
python3 "$REPO/deploy/local/s3.py" mb "$S3_ENDPOINT" "$BUCKET" || die "could not create the bucket"

if [ -z "${CLUSTER_TODAY:-}" ]; then
  if [ -n "${LINECAST_NOW:-}" ]; then
    CLUSTER_TODAY=$(TZ=America/New_York date -d "$LINECAST_NOW" +%F)
  else
    CLUSTER_TODAY=$(TZ=America/New_York date +%F)
  fi
fi
# Generated, checked against the data contract and written to the bucket
# by the operator's own command (operations.md, "Publishing a store to a bucket").
AWS_ENDPOINT_URL="$S3_ENDPOINT" AWS_ALLOW_HTTP=true AWS_REGION=us-east-1 \
  AWS_ACCESS_KEY_ID=cluster AWS_SECRET_ACCESS_KEY=cluster \
  "$ADMIN" data publish --demo --profile small --today "$CLUSTER_TODAY" --seed 7 \
  --store "s3://$BUCKET/$PREFIX" >"$LOGS/fixtures.log" 2>&1 \
  || die "publishing the store to the bucket failed"

# ------------------------------------------------------------------ instances

SIGNING_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(32))')

run_instance() { # i: the instance's own environment, in the foreground
  local i=$1
  env LINECAST_BIND="127.0.0.1:${PORT[$i]}" \
    LINECAST_METRICS_BIND="127.0.0.1:${METRICS[$i]}" \
    LINECAST_VAR_DIR="$RUN/var-$i" \
    LINECAST_DATABASE_URL="$INSTANCE_DATABASE_URL" \
    LINECAST_REDIS_URL="$REDIS_URL" \
    LINECAST_REDIS_NAMESPACE="$NAMESPACE" \
    LINECAST_STORE_URL="s3://$BUCKET/$PREFIX" \
    LINECAST_SIGNING_KEY="$SIGNING_KEY" \
    LINECAST_PUBLIC_URL="http://127.0.0.1:$LB_PORT" \
    LINECAST_CLIENT_IP_HEADER=X-Forwarded-For \
    LINECAST_TRUSTED_PROXY_CIDRS=127.0.0.1/32 \
    LINECAST_WATCH_INTERVAL="${LINECAST_WATCH_INTERVAL:-1}" \
    LINECAST_DRAIN_GRACE_SECS="${LINECAST_DRAIN_GRACE_SECS:-5}" \
    AWS_ENDPOINT_URL="$S3_ENDPOINT" AWS_ALLOW_HTTP=true AWS_REGION=us-east-1 \
    AWS_ACCESS_KEY_ID=cluster AWS_SECRET_ACCESS_KEY=cluster \
    RUST_LOG="${RUST_LOG:-info}" \
    "$API" >>"$LOGS/instance-$i.log" 2>&1 &
  echo $! >"$RUN/instance-$i.pid.new"
  mv "$RUN/instance-$i.pid.new" "$RUN/instance-$i.pid"
  wait $! && code=0 || code=$?
  printf '%s cluster: instance %s (pid %s) exited with %s\n' "$(ts)" "$i" "$(instance_pid "$i")" "$code" >>"$LOGS/instance-$i.log"
}

supervise() { # i
  local i=$1
  while [ ! -e "$RUN/stopping" ]; do
    run_instance "$i"
    while [ -e "$RUN/instance-$i.hold" ] && [ ! -e "$RUN/stopping" ]; do sleep 0.1; done
    [ -e "$RUN/stopping" ] || sleep 0.3
  done
}

for i in $(seq 1 $INSTANCES); do
  supervise "$i" &
  SUPERVISOR[$i]=$!
done
for i in $(seq 1 $INSTANCES); do
  wait_http "http://127.0.0.1:${PORT[$i]}/api/v1/readiness" 180 "instance $i"
done
say "instances ready on ports ${PORT[*]}"

# ------------------------------------------------------------------ nginx

ln -s "$REPO/deploy/nginx/proxy.conf" "$RUN/nginx/linecast/proxy.conf"
{
  echo "upstream linecast {"
  for i in $(seq 1 $INSTANCES); do
    echo "    server 127.0.0.1:${PORT[$i]} max_fails=3 fail_timeout=5s;"
  done
  echo "    keepalive 32;"
  echo "    keepalive_timeout 60s;"
  echo "}"
} >"$RUN/nginx/upstream.conf"
USER_LINE=""
[ "$(id -u)" = 0 ] && USER_LINE="user www-data;"
cat >"$RUN/nginx/nginx.conf" <<EOF
$USER_LINE
daemon off;
worker_processes 1;
worker_rlimit_nofile 8192;
pid $RUN/nginx/nginx.pid;
error_log $LOGS/nginx-error.log notice;
events { worker_connections 4096; }
http {
    # Request end (unix seconds), status, method, URI, which instance(s) and
    # their statuses, and the request's time.
    log_format cluster '\$msec \$status \$request_method "\$request_uri" up=\$upstream_addr ups=\$upstream_status rt=\$request_time';
    access_log $LOGS/nginx-access.log cluster;
    client_body_temp_path $RUN/nginx/tmp/body;
    proxy_temp_path $RUN/nginx/tmp/proxy;
    fastcgi_temp_path $RUN/nginx/tmp/fastcgi;
    uwsgi_temp_path $RUN/nginx/tmp/uwsgi;
    scgi_temp_path $RUN/nginx/tmp/scgi;
    include $RUN/nginx/upstream.conf;
    server {
        listen 127.0.0.1:$LB_PORT;
        # Which instance answered (tests use it; not for a public balancer).
        add_header X-Linecast-Upstream \$upstream_addr always;
        include linecast/proxy.conf;
    }
}
EOF
"$NGINX" -t -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" >"$LOGS/nginx-test.log" 2>&1 \
  || { cat "$LOGS/nginx-test.log" >&2; die "nginx -t refused the generated configuration"; }
"$NGINX" -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" >>"$LOGS/nginx-error.log" 2>&1 &
NGINX_PID=$!
PIDS_TO_STOP+=($NGINX_PID)
wait_http "http://127.0.0.1:$LB_PORT/api/v1/readiness" 30 "nginx"

# ------------------------------------------------------------------ a customer

"$ADMIN" customers create --database-url "$DATABASE_URL" --email ops@cluster.local --name "Cluster Ops" >/dev/null \
  || die "creating the customer failed"
KEY=$("$ADMIN" keys issue --database-url "$DATABASE_URL" --customer-email ops@cluster.local --name cluster --json \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["api_key"])') || die "issuing a key failed"
echo "$KEY" >"$RUN/key"

export CLUSTER_URL="http://127.0.0.1:$LB_PORT" CLUSTER_KEY="$KEY" CLUSTER_RUN="$RUN" CLUSTER_ADMIN="$ADMIN" \
  CLUSTER_DATABASE_URL="$DATABASE_URL" CLUSTER_REDIS_URL="$REDIS_URL" CLUSTER_REDIS_NAMESPACE="$NAMESPACE" \
  CLUSTER_S3_ENDPOINT="$S3_ENDPOINT" CLUSTER_BUCKET="$BUCKET" CLUSTER_STORE_PREFIX="$PREFIX" \
  CLUSTER_PG_PROXY="$PG_PROXY_CONTROL" CLUSTER_TODAY CLUSTER_INSTANCES=$INSTANCES
curl -fsS -m 10 -o /dev/null -H "X-API-Key: $KEY" "$CLUSTER_URL/api/v1/customers/me" \
  || die "an authenticated request through the balancer failed"
say "balancer http://127.0.0.1:$LB_PORT (instances ${PORT[*]}; S3 $S3_ENDPOINT; PostgreSQL proxy 127.0.0.1:$PG_PROXY_PORT, control $PG_PROXY_CONTROL; run folder $RUN)"

if [ $# -eq 0 ]; then
  # Ctrl-C or SIGTERM is the normal way to stop it.
  trap 'STATUS=0; exit 0' INT TERM
  say "key: $KEY"
  say "running; Ctrl-C stops everything"
  while :; do sleep 3600 & wait $!; done
fi
"$@" && STATUS=0 || STATUS=$?
[ "$STATUS" = 0 ] || say "'$*' exited with $STATUS"
exit "$STATUS"
