#!/usr/bin/env python3
"""A sequential client walking one season page by page, as the original
service's command-line client does: one keep-alive connection, the first
page, then `next_offset` with the echoed `snapshot`, one call after the
other, no retry of 429. Prints the calls, the statuses, the elapsed time and
the calls per second; exits 1 on any status but 200.

    bench/walk.py BASE_URL API_KEY SPORT MODEL_TYPE SEASON [LIMIT] [ROUNDS]

ROUNDS (default 1) walks the season that many times back to back on the
same key (each round from the first page), to show the sustained rate once
the burst is spent.
"""

import http.client
import json
import sys
import time
import urllib.parse


def main() -> int:
    base, key, sport, model_type, season = sys.argv[1:6]
    limit = int(sys.argv[6]) if len(sys.argv) > 6 else 100
    rounds = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port or 80)
    path = f"/api/v1/results/{sport}/{model_type}"
    statuses: dict[int, int] = {}
    calls = rows = 0
    first_refusal = None
    started = time.perf_counter()
    for _ in range(rounds):
        query = {"season": season, "limit": limit}
        while True:
            conn.request("GET", f"{path}?{urllib.parse.urlencode(query)}", headers={"X-API-Key": key})
            res = conn.getresponse()
            body = res.read()
            calls += 1
            statuses[res.status] = statuses.get(res.status, 0) + 1
            if res.status != 200:
                if first_refusal is None:
                    first_refusal = (calls, time.perf_counter() - started, res.status, body[:120].decode())
                break
            page = json.loads(body)
            rows += page["returned"]
            if page["next_offset"] is None:
                break
            query = {"season": season, "limit": limit, "offset": page["next_offset"], "snapshot": page["snapshot"]}
    elapsed = time.perf_counter() - started
    print(
        f"WALK calls={calls} rows={rows} statuses={json.dumps(statuses, sort_keys=True)} "
        f"elapsed_s={elapsed:.3f} calls_per_s={calls / elapsed:.1f}"
    )
    if first_refusal is not None:
        n, at, status, detail = first_refusal
        print(f"REFUSED at call {n} after {at:.3f} s: {status} {detail}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
