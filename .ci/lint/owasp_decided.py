"""Judges the OWASP API ruleset's findings against docs/decisions.md.

Usage: owasp_decided.py FINDINGS.json DECISIONS.md
FINDINGS.json is `spectral lint -f json` output. The decided rules are the
codes in the first column of the table under the heading
"OWASP API ruleset: every rule fixed or decided". Fails on a finding whose
rule is not decided, and on a decided rule that finds nothing (fixed since:
its row must go).
"""
import collections
import json
import re
import sys

findings_path, decisions_path = sys.argv[1], sys.argv[2]
with open(findings_path) as f:
    text = f.read()
if not text.strip().startswith("["):
    sys.exit(f"FAIL: spectral wrote no findings list to {findings_path}: {text[:300]}")
findings = json.loads(text)
with open(decisions_path) as f:
    decisions = f.read()
section = decisions.split("### OWASP API ruleset: every rule fixed or decided", 1)
if len(section) != 2:
    sys.exit("FAIL: docs/decisions.md has no 'OWASP API ruleset: every rule fixed or decided' section")
body = section[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
decided = set(re.findall(r"^\|\s*`(owasp:[^`]+)`", body, re.M))
if not decided:
    sys.exit("FAIL: the decisions section lists no rule")
counts = collections.Counter(f["code"] for f in findings)
undecided = sorted(set(counts) - decided)
stale = sorted(decided - set(counts))
for code, n in counts.most_common():
    print(f"{'decided' if code in decided else 'UNDECIDED':>9}  {n:4}  {code}")
if undecided:
    for code in undecided:
        example = next(f for f in findings if f["code"] == code)
        print(f"FAIL: {code} is neither fixed nor decided, e.g. {'.'.join(map(str, example['path']))}: {example['message']}")
    sys.exit(1)
if stale:
    sys.exit(f"FAIL: decided in docs/decisions.md but no longer found (fixed: remove the row): {', '.join(stale)}")
print(f"ok: {len(findings)} OWASP findings, all under {len(counts)} decided rules")
