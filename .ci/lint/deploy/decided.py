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
--ignore`. The table whose header starts `| Check (Cloud Run jobs only)`
lists checks skipped for the Cloud Run job manifests alone (Checkov reads a
Cloud Run job as a Kubernetes Job):

  decided.py checkov-job DECISIONS.md          those checks, comma-separated
  decided.py stale-job   DECISIONS.md CHECKOV.json
      as `stale`, for those checks over the Cloud Run jobs' report
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


JOB_TABLE = "| Check (Cloud Run jobs only)"


def codes(body, pattern):
    return sorted(set(re.findall(r"^\|\s*`(" + pattern + r")`", body, re.M)))


def split_job_table(body):
    """The section without the Cloud Run jobs' table, and that table."""
    if JOB_TABLE not in body:
        return body, ""
    before, after = body.split(JOB_TABLE, 1)
    table, rest = (after.split("\n\n", 1) + [""])[:2]
    return before + "\n" + rest, table


def stale(decided, report_path):
    with open(report_path) as f:
        reports = json.load(f)
    if isinstance(reports, dict):
        reports = [reports]
    failing = {c["check_id"] for r in reports for c in r.get("results", {}).get("failed_checks", [])}
    gone = sorted(set(decided) - failing)
    if gone:
        sys.exit(f"FAIL: decided in docs/decisions.md but no longer failing (fixed: remove the row): {', '.join(gone)}")
    print(f"ok: each of the {len(decided)} decided Checkov checks still fails where decided: {', '.join(decided)}")


def main():
    what, decisions_path = sys.argv[1], sys.argv[2]
    body, job_table = split_job_table(section(decisions_path))
    checkov = codes(body, r"CKV2?_[A-Z0-9]+_\d+")
    job = codes(job_table, r"CKV2?_[A-Z0-9]+_\d+")
    hadolint = codes(body, r"(?:DL|SC)\d+")
    if what == "checkov":
        print(",".join(checkov))
    elif what == "checkov-job":
        print(",".join(job))
    elif what == "hadolint":
        print(",".join(hadolint))
    elif what == "stale":
        stale(checkov, sys.argv[3])
    elif what == "stale-job":
        stale(job, sys.argv[3])
    else:
        sys.exit(f"unknown request {what}")


if __name__ == "__main__":
    main()
