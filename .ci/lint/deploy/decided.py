"""The deployment linters' decided findings, from docs/decisions.md.

Usage:
  decided.py checkov  DECISIONS.md   prints the decided Checkov checks, comma-separated
  decided.py hadolint DECISIONS.md   prints the decided hadolint rules, comma-separated
  decided.py stale    DECISIONS.md CHECKOV.json
      fails when a decided Checkov check no longer fails anywhere in
      CHECKOV.json (`checkov --check <decided> -o json`): fixed since, so
      its row must go.

The decided findings are the codes in the first column of the tables under
the heading "Checkov: checks decided" (CKV_..., CKV2_... for Checkov; DL...
and SC... for hadolint). That section is the one home of both lists:
.ci/lint/deploy.sh passes them to `checkov --skip-check` and `hadolint
--ignore`.
"""
import json
import re
import sys

HEADING = "### Checkov: checks decided"


def section(decisions_path):
    with open(decisions_path) as f:
        text = f.read()
    parts = text.split(HEADING, 1)
    if len(parts) != 2:
        sys.exit(f"FAIL: docs/decisions.md has no '{HEADING[4:]}' section")
    return parts[1].split("\n### ", 1)[0].split("\n## ", 1)[0]


def codes(body, pattern):
    return sorted(set(re.findall(r"^\|\s*`(" + pattern + r")`", body, re.M)))


def main():
    what, decisions_path = sys.argv[1], sys.argv[2]
    body = section(decisions_path)
    checkov = codes(body, r"CKV2?_[A-Z0-9]+_\d+")
    hadolint = codes(body, r"(?:DL|SC)\d+")
    if what == "checkov":
        print(",".join(checkov))
    elif what == "hadolint":
        print(",".join(hadolint))
    elif what == "stale":
        with open(sys.argv[3]) as f:
            reports = json.load(f)
        if isinstance(reports, dict):
            reports = [reports]
        failing = {c["check_id"] for r in reports for c in r.get("results", {}).get("failed_checks", [])}
        stale = sorted(set(checkov) - failing)
        if stale:
            sys.exit(f"FAIL: decided in docs/decisions.md but no longer failing (fixed: remove the row): {', '.join(stale)}")
        print(f"ok: each of the {len(checkov)} decided Checkov checks still fails where decided: {', '.join(checkov)}")
    else:
        sys.exit(f"unknown request {what}")


if __name__ == "__main__":
    main()
