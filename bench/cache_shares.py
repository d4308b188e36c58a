"""Prints each cache's share of the memory budget from a /metrics page on stdin."""
import re
import sys

rows = {}
for line in sys.stdin:
    m = re.match(r'linecast_cache_(budget_bytes|bytes|entries|evictions)\{cache="(\w+)"\} (\S+)', line)
    if m:
        rows.setdefault(m.group(2), {})[m.group(1)] = float(m.group(3))
for cache, v in sorted(rows.items()):
    print(
        f"cache {cache}: {v.get('bytes', 0) / 1048576:.1f} of {v.get('budget_bytes', 0) / 1048576:.1f} MiB, "
        f"{int(v.get('entries', 0))} entries, {int(v.get('evictions', 0))} evicted"
    )
