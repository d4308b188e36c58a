#!/usr/bin/env python3
"""Heavy reads against a running server (bench/heavy.sh starts it).

    bench/heavy.py stalled BASE KEY PATH N PID
        opens N connections with a 4 KiB receive buffer, sends PATH on each
        and reads nothing; prints the server's RSS growth after 3 s, then
        waits and prints how many of the N were ended by the server before
        their body was complete (the stall timeout).
    bench/heavy.py starve BASE EXPORT_KEY OTHER_KEY SECONDS
        4 threads cycle EXPORT_KEY through uncached season=all exports
        (every sport, market, format and coding) while one thread times
        OTHER_KEY's predictions and /health; prints p50/p90/p99 of each.
    bench/heavy.py badkeys BASE SECONDS
        64 threads present unknown well-shaped keys from one address;
        prints how many were answered 401 (checked) and 429 (refused).
"""

import http.client
import random
import socket
import string
import sys
import threading
import time
import urllib.parse

SPORTS = ["nba", "nfl", "mlb", "nhl", "ncaaf", "ncaab"]
MARKETS = ["won_on_points", "over_under", "won_on_spread"]


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    return 0


def stalled(base, key, path, n, pid):
    url = urllib.parse.urlsplit(base)
    before = rss_kb(pid)
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect((url.hostname, url.port))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\n\r\n".encode())
        socks.append(s)
    time.sleep(3)
    after = rss_kb(pid)
    print(f"STALLED n={n} rss_before={before // 1024}MB rss_after={after // 1024}MB growth={(after - before) / 1024:.1f}MB")
    return socks


def drain_all(socks, wait):
    time.sleep(wait)
    cut = complete = 0
    for s in socks:
        s.settimeout(10)
        data = b""
        try:
            while True:
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = [l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
                if length and len(body) >= int(length[0].split(b":")[1]):
                    break
        except (ConnectionResetError, socket.timeout):
            pass
        head, _, body = data.partition(b"\r\n\r\n")
        length = [l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
        if length and len(body) >= int(length[0].split(b":")[1]):
            complete += 1
        else:
            cut += 1
    print(f"STALL_TIMEOUT waited={wait}s cut={cut} complete={complete}")


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p / 100))] if xs else float("nan")


def starve(base, export_key, other_key, seconds):
    url = urllib.parse.urlsplit(base)
    stop = time.time() + seconds
    exports = [
        f"/api/v1/results/{s}/{m}/export?season=all&format={f}"
        for f in ["csv", "parquet"] for s in SPORTS for m in MARKETS
    ]
    codings = ["identity", "gzip", "br"]
    done = {"exports": 0, "statuses": {}}
    lock = threading.Lock()

    def exporter(offset):
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
        i = offset
        while time.time() < stop:
            path = exports[i % len(exports)]
            coding = codings[(i // len(exports)) % 3]
            i += 4
            conn.request("GET", path, headers={"X-API-Key": export_key, "Accept-Encoding": coding})
            res = conn.getresponse()
            res.read()
            with lock:
                done["exports"] += 1
                done["statuses"][res.status] = done["statuses"].get(res.status, 0) + 1
            if res.status == 429:
                time.sleep(0.2)

    threads = [threading.Thread(target=exporter, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    preds, health = [], []
    while time.time() < stop:
        for path, into in (("/api/v1/predictions/nba/won_on_points", preds), ("/api/v1/health", health)):
            started = time.perf_counter()
            conn.request("GET", path, headers={"X-API-Key": other_key})
            res = conn.getresponse()
            res.read()
            into.append((time.perf_counter() - started) * 1000)
        time.sleep(0.02)
    for t in threads:
        t.join()
    for name, xs in (("predictions", preds), ("health", health)):
        print(f"STARVE {name} n={len(xs)} p50={pct(xs, 50):.2f}ms p90={pct(xs, 90):.2f}ms p99={pct(xs, 99):.2f}ms max={max(xs):.1f}ms")
    print(f"STARVE exports={done['exports']} statuses={done['statuses']}")


def badkeys(base, seconds):
    url = urllib.parse.urlsplit(base)
    stop = time.time() + seconds
    counts = {}
    lock = threading.Lock()
    alphabet = string.ascii_letters + string.digits

    def client():
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        while time.time() < stop:
            key = "sk_service_" + "".join(random.choice(alphabet) for _ in range(40))
            conn.request("GET", "/api/v1/sports", headers={"X-API-Key": key})
            res = conn.getresponse()
            res.read()
            with lock:
                counts[res.status] = counts.get(res.status, 0) + 1

    started = time.time()
    threads = [threading.Thread(target=client) for _ in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.time() - started
    bound = 40 + 20 * elapsed
    print(f"BADKEYS seconds={elapsed:.2f} checked_401={counts.get(401, 0)} refused_429={counts.get(429, 0)} "
          f"bound={bound:.0f} (+64 in flight) other={ {k: v for k, v in counts.items() if k not in (401, 429)} }")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "stalled":
        socks = stalled(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
        drain_all(socks, float(sys.argv[7]) if len(sys.argv) > 7 else 0)
    elif cmd == "starve":
        starve(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]))
    elif cmd == "badkeys":
        badkeys(sys.argv[2], float(sys.argv[3]))
