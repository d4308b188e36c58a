#!/usr/bin/env python3
"""Times one authenticated GET on one keep-alive connection: the first call
(cold: computed and rendered) and the next N (warm: served from the
response cache), client-side wall time per call. Stays under the per-key
burst (keep N below 100). Prints one TIMED line; exits 1 on any status but
200.

    bench/timed_get.py BASE_URL API_KEY PATH [N]
"""

import http.client
import statistics
import sys
import time
import urllib.parse


def main() -> int:
    base, key, path = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port or 80)
    times = []
    size = 0
    for _ in range(n + 1):
        started = time.perf_counter()
        conn.request("GET", path, headers={"X-API-Key": key})
        res = conn.getresponse()
        body = res.read()
        times.append((time.perf_counter() - started) * 1000)
        if res.status != 200:
            print(f"GET {path}: {res.status} {body[:200]!r}")
            return 1
        size = len(body)
    warm = sorted(times[1:])
    p99 = warm[min(len(warm) - 1, int(len(warm) * 0.99))]
    print(
        f"TIMED path={path} bytes={size} cold_ms={times[0]:.2f} "
        f"warm_median_ms={statistics.median(warm):.3f} warm_p99_ms={p99:.3f} warm_calls={len(warm)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
