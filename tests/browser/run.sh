#!/usr/bin/env bash
# Runs the portal's browser test against a demo server started here:
#   tests/browser/run.sh [path/to/linecast-api] [screenshots dir]
# Needs Debian's chromium (/usr/bin/chromium) and `npm ci` in tests/browser.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-target/debug/linecast-api}
shots=${2:-}
port=${BROWSER_PORT:-18098}
dir=$(mktemp -d)
LINECAST_VAR_DIR="$dir" LINECAST_BIND="127.0.0.1:$port" LINECAST_NOW=2026-11-21T17:00:00Z RUST_LOG=warn \
  LINECAST_WEBHOOK_ALLOW_LOOPBACK=true LINECAST_WEBHOOK_INTERVAL=0.2 \
  "$bin" >"$dir/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 1 240); do curl -sf "http://127.0.0.1:$port/api/v1/readiness" >/dev/null && break; sleep 0.5; done
curl -sf "http://127.0.0.1:$port/api/v1/readiness" >/dev/null || { cat "$dir/server.log"; exit 1; }
BASE="http://127.0.0.1:$port" KEY="$(cat "$dir/demo-key.txt")" SHOTS="$shots" node "$here/portal.mjs"
