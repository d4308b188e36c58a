"""Portal page latency, warm: signs in with the demo key, then asks each page
N times in turn (one connection, no concurrency) and prints p50 and p99 in
milliseconds per page. The first round warms the caches and is not counted.

    python3 bench/portal.py http://127.0.0.1:18294 <demo key> [N]
"""

import http.client
import statistics
import sys
import time
import urllib.parse

base, key = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 200
url = urllib.parse.urlsplit(base)
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)

body = urllib.parse.urlencode({"api_key": key})
conn.request("POST", "/portal/sign-in", body, {"Content-Type": "application/x-www-form-urlencoded"})
res = conn.getresponse()
res.read()
assert res.status == 303, res.status
cookie = res.getheader("Set-Cookie").split(";")[0]

pages = [
    "/portal/overview",
    "/portal/keys",
    "/portal/quality?sport=nba&market=won_on_points&source=all",
    "/portal/quality/diagram.svg?sport=nba&market=won_on_points&source=all",
    "/portal/data",
    "/status",
]
times = {p: [] for p in pages}
for round_ in range(n + 1):
    for p in pages:
        start = time.perf_counter()
        conn.request("GET", p, headers={"Cookie": cookie})
        res = conn.getresponse()
        res.read()
        took = (time.perf_counter() - start) * 1000
        if res.status == 404 and p == "/portal/keys":
            continue
        assert res.status == 200, (p, res.status)
        if round_ > 0:
            times[p].append(took)
for p in pages:
    t = sorted(times[p])
    if not t:
        print(f"{p}: not served")
        continue
    p99 = t[min(len(t) - 1, int(len(t) * 0.99))]
    print(f"{p}: p50 {statistics.median(t):.2f} ms, p99 {p99:.2f} ms ({len(t)} requests)")
