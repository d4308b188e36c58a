#!/usr/bin/env bash
# Type-check and run the TypeScript smoke client against a running linecast:
#   clients/ts/run.sh BASE_URL API_KEY
# Installs the pinned toolchain (npm ci), generates linecast.d.ts from
# "$BASE_URL/openapi.json" with openapi-typescript (generated, not committed),
# type-checks smoke.ts (tsc --noEmit, strict), then compiles it into a scratch
# folder and runs it with node. Exits non-zero on any failure.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BASE_URL API_KEY" >&2
  exit 2
fi
base=${1%/}
key=$2
cd "$(dirname "$0")"

npm ci --no-audit --no-fund --loglevel=error >/dev/null
echo "ok: npm ci"

npx --no-install openapi-typescript "$base/openapi.json" --output linecast.d.ts >/dev/null
echo "ok: generated linecast.d.ts from $base/openapi.json"

npx --no-install tsc --noEmit -p tsconfig.json
echo "ok: tsc --strict --noEmit"

# The build folder sits here so the compiled module resolves node_modules.
out=$(mktemp -d "$PWD/.smoke-build.XXXXXX")
trap 'rm -rf "$out"' EXIT
npx --no-install tsc -p tsconfig.json --noEmit false --outDir "$out"
echo '{"type":"module"}' > "$out/package.json"
echo "ok: compiled smoke.ts"

node "$out/smoke.js" "$base" "$key"
