#!/usr/bin/env bash
# Lints the served OpenAPI document: Spectral's whole `spectral:oas` ruleset
# must find nothing (no error, no warning, no hint); every finding of the
# OWASP API ruleset must belong to a rule decided in docs/decisions.md
# ("OWASP API ruleset: every rule fixed or decided"), and a rule that finds
# nothing must not be listed there as decided (so the list stays true).
#   .ci/lint/run.sh DOCUMENT   (a file or a URL of /openapi.json)
set -euo pipefail
doc=$1
here=$(cd "$(dirname "$0")" && pwd)
if [[ "$doc" != http* ]]; then doc=$(cd "$(dirname "$doc")" && pwd)/$(basename "$doc"); fi
cd "$here"
npm ci --no-audit --no-fund --loglevel=error >/dev/null
echo "spectral:oas (all rules):"
npx --no-install spectral lint --ruleset .spectral.yaml --fail-severity=hint "$doc"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Exits 1 when it finds anything: the findings are judged below.
npx --no-install spectral lint --ruleset .spectral-owasp.yaml -f json -o "$out" "$doc" >/dev/null || true
python3 "$here/owasp_decided.py" "$out" "$here/../../docs/decisions.md"
