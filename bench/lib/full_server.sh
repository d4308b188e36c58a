# Sourced by bench scripts: builds the release binaries, generates the full
# data profile into $STORE when missing, starts a production-mode server on
# $PORT pinned to core 0 over it, and issues one key into $KEY.
# Needs STORE and PORT; sets API, ADMIN, WORK, DB and KEY. API_BINARY=path
# runs another build of the server (an older one, to compare) instead.
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --profile dist -q -p linecast-api -p linecast-admin --bins || exit 1
API=${API_BINARY:-$TARGET/dist/linecast-api}
ADMIN=$TARGET/dist/linecast-admin
[ -d "$STORE/seasons" ] || "$ADMIN" fixtures generate --profile full --out "$STORE" --today 2026-11-21 || exit 1
WORK=$(mktemp -d)
DB="sqlite://$WORK/bench.db?mode=rwc"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
"$ADMIN" migrate --database-url "$DB" >/dev/null || exit 1
LINECAST_STORE_URL="file://$STORE" LINECAST_DATABASE_URL="$DB" LINECAST_NOW=2026-11-21T17:00:00Z \
  LINECAST_BIND=127.0.0.1:$PORT RUST_LOG=warn taskset -c 0 "$API" >"$WORK/server.log" 2>&1 &
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/api/v1/liveness" >/dev/null && break; sleep 0.2; done
"$ADMIN" customers create --database-url "$DB" --email bench@linecast.local --name Bench >/dev/null || exit 1
KEY=$("$ADMIN" keys issue --database-url "$DB" --customer-email bench@linecast.local --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key"])') || exit 1
