#!/usr/bin/env python3
"""Writes a season of earlier versions of one predictions object for
`linecast-admin releases import`: one every two hours back over DAYS days
from the current file, each a small walk of the probabilities and prices
(the demo's rule, bench only). Usage:
  bench/season_releases.py STORE_DIR KEY OUT_DIR [DAYS] [NOW]
"""
import datetime as dt
import os
import random
import sys

store, key, out = sys.argv[1], sys.argv[2], sys.argv[3]
days = int(sys.argv[4]) if len(sys.argv) > 4 else 180
now = dt.datetime.fromisoformat((sys.argv[5] if len(sys.argv) > 5 else "2026-11-21T17:00:00+00:00").replace("Z", "+00:00"))
lines = open(os.path.join(store, key)).read().splitlines()
header, rows = lines[0].split(","), [l.split(",") for l in lines[1:] if l]
prob = [i for i, h in enumerate(header) if h.isupper()]
price = [i for i, h in enumerate(header) if h.endswith("_line") and not h.startswith("open_")]
rng = random.Random(42)
for k in range(1, days * 12 + 1):
    at = now - dt.timedelta(hours=2 * k)
    for row in rows:
        for i in prob:
            if row[i]:
                row[i] = f"{min(0.98, max(0.02, float(row[i]) + rng.gauss(0, 0.006))):.4f}"
        for i in price:
            if row[i]:
                p = float(row[i])
                moved = round(p + rng.gauss(0, 4))
                row[i] = str(max(100, moved) if p >= 100 else min(-100, moved))
    path = os.path.join(out, at.strftime("%Y%m%dT%H%M%SZ"), key)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(",".join(header) + "\n" + "".join(",".join(r) + "\n" for r in rows))
print(f"{days * 12} versions of {key} in {out}")
