#!/usr/bin/env python3
"""The cluster test: runs against deploy/local/cluster.sh, through its nginx.

    deploy/local/cluster.sh python3 deploy/local/cluster_test.py

1. The generated client's smoke test (clients/smoke.py, a client made by
   openapi-python-client from the balancer's /openapi.json; it pages results
   and reads CSV and Parquet exports) and a CSV export read with csv.
2. 64 concurrent clients for 20 s: the monthly count in the database equals
   the requests answered 200, exactly, once the instances have flushed.
3. A rolling restart of the three instances (SIGTERM, one at a time, each
   back to ready before the next) while one client sends 200 requests a
   second: no request fails.
4. kill -9 of one instance under 200 requests a second: failures are no more
   than the requests in flight at the kill; the dead instance's quota lease
   stays reserved, at most one block; the database's count is short of what
   was served by at most that instance's last second (the documented crash
   bound), and over it by at most the requests in flight.
5. An event stream through the balancer: its instance is stopped; the client
   reconnects with Last-Event-ID, lands on another instance and misses no
   release published while it was away.
6. The customer's stream cap holds across instances (shared through Redis):
   its streams spread over the instances, and the one past the cap is a 429
   whichever instance it reaches.
7. PostgreSQL cut for 20 s under load (the instances reach it through
   cluster.sh's proxy, deploy/local/cut_proxy.py; the cut is a blackhole),
   then restored: the public routes never fail; keys used before the cut
   keep serving (LINECAST_DB_OUTAGE_GRACE_SECS, 60 s by default, is longer
   than the cut); a key never seen is a fast 503; readiness stays 200 on
   every instance (PostgreSQL is shared by all of them); once the instances
   have flushed, the customer's monthly count, in the database and as
   /customers/me/usage reports it, equals the requests it was served.

Prints each phase's figures and a summary; exits 1 on the first failure.
Needs the environment cluster.sh exports (CLUSTER_*).
"""
import csv
import http.client
import io
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
ENV = os.environ
URL = ENV["CLUSTER_URL"]
HOST, PORT = urllib.parse.urlsplit(URL).hostname, urllib.parse.urlsplit(URL).port
RUN, ADMIN, DB = ENV["CLUSTER_RUN"], ENV["CLUSTER_ADMIN"], ENV["CLUSTER_DATABASE_URL"]
KEY = ENV["CLUSTER_KEY"]
INSTANCES = int(ENV.get("CLUSTER_INSTANCES", "3"))
LOAD_CLIENTS, LOAD_SECONDS = int(ENV.get("LOAD_CLIENTS", "64")), float(ENV.get("LOAD_SECONDS", "20"))
PACED_RATE = float(ENV.get("PACED_RATE", "200"))
FIGURES = []


def fail(what):
    print(f"FAIL: {what}", flush=True)
    sys.exit(1)


def check(cond, what):
    if not cond:
        fail(what)
    print(f"ok: {what}", flush=True)


def figure(text):
    FIGURES.append(text)
    print(f"  {text}", flush=True)


def phase(title):
    print(f"\n== {title} ({time.strftime('%H:%M:%S')})", flush=True)


# ------------------------------------------------------------------ the cluster


def admin(*args):
    out = subprocess.run([ADMIN, *args, "--database-url", DB, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"linecast-admin {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def customer(email, keys):
    """A new customer and `keys` of its keys; returns (customer_id, keys)."""
    admin("customers", "create", "--email", email, "--name", email.split("@")[0])
    issued = [admin("keys", "issue", "--customer-email", email, "--name", f"k{i}") for i in range(keys)]
    return issued[0]["customer_id"], [k["api_key"] for k in issued]


def monthly(email):
    return admin("customers", "show", "--email", email)["usage"]["monthly_requests"]


def instance_pid(i):
    with open(f"{RUN}/instance-{i}.pid") as f:
        return int(f.read().strip())


def instance_port(i):
    with open(f"{RUN}/instance-{i}.port") as f:
        return int(f.read().strip())


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def status_of(port, path, timeout=2):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        res = conn.getresponse()
        res.read()
        return res.status
    except OSError:
        return None
    finally:
        conn.close()


def wait_for(cond, seconds, what):
    deadline = time.time() + seconds
    while not cond():
        if time.time() > deadline:
            fail(f"{what} within {seconds} s")
        time.sleep(0.05)
    return time.time()


def get(path, key=KEY, headers=None):
    conn = http.client.HTTPConnection(HOST, PORT, timeout=60)
    try:
        conn.request("GET", path, headers={"X-API-Key": key, **(headers or {})})
        res = conn.getresponse()
        return res.status, res.headers, res.read()
    finally:
        conn.close()


def access_log():
    """nginx's access log: dicts of end, start, status, uri, upstreams (host:port, in try order)."""
    pattern = re.compile(r'(\d+\.\d+) (\d+) (\S+) "([^"]*)" up=(.*) ups=(.*) rt=([\d.]+)$')
    rows = []
    with open(f"{RUN}/logs/nginx-access.log") as f:
        for line in f:
            m = pattern.match(line.strip())
            if not m:
                continue
            end, rt = float(m.group(1)), float(m.group(7))
            ups = [u.strip() for u in m.group(5).split(",") if u.strip() not in ("", "-")]
            rows.append(
                {"end": end, "start": end - rt, "status": int(m.group(2)), "uri": m.group(4), "upstreams": ups}
            )
    return rows


# ------------------------------------------------------------------ clients


class Paced:
    """Sends GETs at `rate` a second from a pool of threads (keep-alive
    connections through the balancer), rotating keys (`None`: no key) and
    paths; records each request's start, end and outcome."""

    def __init__(self, rate, keys, paths, workers=16):
        self.rate, self.keys, self.paths = rate, keys, paths
        self.tasks = queue.Queue()
        self.records = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.work, daemon=True) for _ in range(workers)]
        self.dispatcher = threading.Thread(target=self.dispatch, daemon=True)

    def start(self):
        for t in self.threads:
            t.start()
        self.dispatcher.start()
        return self

    def dispatch(self):
        n, begin = 0, time.monotonic()
        while not self.stopping.is_set():
            due = begin + n / self.rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            self.tasks.put(n)
            n += 1
        for _ in self.threads:
            self.tasks.put(None)

    def work(self):
        conn = None
        while True:
            n = self.tasks.get()
            if n is None:
                break
            key, path = self.keys[n % len(self.keys)], self.paths[n % len(self.paths)]
            start = time.time()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(HOST, PORT, timeout=30)
                conn.request("GET", path, headers={"X-API-Key": key} if key else {})
                res = conn.getresponse()
                res.read()
                outcome = res.status
                if (res.getheader("Connection") or "").lower() == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException) as e:
                outcome = f"error: {type(e).__name__}: {e}"
                if conn is not None:
                    conn.close()
                conn = None
            with self.lock:
                self.records.append((start, time.time(), outcome))

    def stop(self):
        self.stopping.set()
        self.dispatcher.join()
        for t in self.threads:
            t.join()
        return self.records


def failures(records):
    return [r for r in records if r[2] != 200]


def served_paths():
    """Cheap authenticated GETs that answer 200 here (rendered once, then bytes)."""
    paths = []
    for sport in ("nba", "nfl", "mlb", "nhl", "ncaab", "ncaaf"):
        for model in ("won_on_points", "won_on_spread", "over_under"):
            paths.append(f"/api/v1/predictions/{sport}/{model}")
        paths.append(f"/api/v1/odds/{sport}")
    ok = [p for p in paths if get(p)[0] == 200]
    if len(ok) < 4:
        fail(f"at least 4 data routes answer 200 through the balancer (got {ok})")
    return ok


# ------------------------------------------------------------------ 1. smoke


def smoke_and_export():
    phase("1. generated client smoke test and a CSV export, through the balancer")
    with tempfile.TemporaryDirectory(prefix="cluster-client-") as work:
        smoke(work)
    status, headers, body = get("/api/v1/results/nba/won_on_points/export?format=csv")
    check(status == 200, f"GET /api/v1/results/nba/won_on_points/export?format=csv answers 200 (got {status})")
    check("text/csv" in (headers.get("Content-Type") or ""), "the export is text/csv")
    rows = list(csv.reader(io.StringIO(body.decode())))
    check(len(rows) > 1 and "date" in rows[0], f"the export has a header and {len(rows) - 1} rows")
    figure(f"smoke test passed; export nba/won_on_points CSV: {len(rows) - 1} rows, {len(body)} bytes")


def smoke(work):
    status, _, body = get("/openapi.json")
    check(status == 200, "the balancer serves /openapi.json")
    with open(os.path.join(work, "openapi.json"), "wb") as f:
        f.write(body)
    gen = subprocess.run(
        ["openapi-python-client", "generate", "--path", "openapi.json", "--meta", "none",
         "--output-path", "linecast_client", "--overwrite"],
        cwd=work, capture_output=True, text=True,
    )
    if gen.returncode != 0:
        print(gen.stdout, gen.stderr)
        fail("openapi-python-client generates the client (pip install openapi-python-client)")
    out = subprocess.run([sys.executable, os.path.join(REPO, "clients/smoke.py"), URL, KEY, work],
                         capture_output=True, text=True)
    print(out.stdout.strip())
    if out.returncode != 0:
        print(out.stderr)
        fail("clients/smoke.py passes through the balancer")
    check(True, "clients/smoke.py passes through the balancer")


# ------------------------------------------------------------------ 2. load


def load(paths):
    phase(f"2. {LOAD_CLIENTS} concurrent clients for {LOAD_SECONDS:g} s; the monthly count equals the 200s")
    # Four customers, 16 keys each: one key per client, each well under the
    # per-key rate once the instances share the load.
    customers = []
    per = (LOAD_CLIENTS + 3) // 4
    for c in range(4):
        email = f"load{c}@cluster.local"
        _, keys = customer(email, per)
        customers.append((email, keys))
    counts = {email: Counter() for email, _ in customers}
    lock = threading.Lock()
    stop_at = time.monotonic() + LOAD_SECONDS

    def client(email, key, offset):
        local = Counter()
        conn = None
        n = offset
        while time.monotonic() < stop_at:
            path = paths[n % len(paths)]
            n += 1
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(HOST, PORT, timeout=30)
                conn.request("GET", path, headers={"X-API-Key": key})
                res = conn.getresponse()
                res.read()
                local[res.status] += 1
            except (OSError, http.client.HTTPException):
                local["failed"] += 1
                if conn is not None:
                    conn.close()
                conn = None
        if conn is not None:
            conn.close()
        with lock:
            counts[email].update(local)

    threads = []
    for c, (email, keys) in enumerate(customers):
        for k, key in enumerate(keys):
            if len(threads) < LOAD_CLIENTS:
                threads.append(threading.Thread(target=client, args=(email, key, c * 7 + k)))
    started = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.time() - started
    total = sum((c for c in counts.values()), Counter())
    requests = sum(v for k, v in total.items() if k != "failed") + total["failed"]
    # Every answer but a 429 is counted; wait for the flushes (every second).
    expected = {email: sum(v for k, v in c.items() if k not in (429, "failed")) for email, c in counts.items()}
    deadline = time.time() + 15
    while True:
        db = {email: monthly(email) for email, _ in customers}
        if db == expected or time.time() > deadline:
            break
        time.sleep(0.5)
    flushed_after = time.time() - started - elapsed
    figure(
        f"load: {len(threads)} clients, {elapsed:.1f} s, {requests} requests ({requests / elapsed:.0f}/s); "
        f"200: {total[200]}, 429: {total[429]}, other: {requests - total[200] - total[429] - total['failed']}, "
        f"failed: {total['failed']}"
    )
    figure(f"load: monthly count in the database {sum(db.values())} = 200s served {total[200]} "
           f"(per customer {sorted(db.values())}; read {flushed_after:.1f} s after the load)")
    check(total["failed"] == 0, "no request failed under load")
    check(all(k in (200, 429, "failed") for k in total), f"every answer is 200 or 429 ({dict(total)})")
    check(db == expected, f"each customer's monthly count equals its 200s exactly ({db} vs {expected})")


# ------------------------------------------------------------------ 3. rolling restart


def restart(i, hold=False):
    """SIGTERM instance i; checks that its readiness fails while liveness
    still answers (the drain grace), waits until it has exited and (unless
    held) is back and ready. Returns the instants."""
    port, old = instance_port(i), instance_pid(i)
    t = {"term": time.time()}
    os.kill(old, signal.SIGTERM)
    t["unready"] = wait_for(lambda: status_of(port, "/api/v1/readiness", 1) == 503, 30,
                            f"instance {i}'s readiness answers 503 after SIGTERM")
    t["live"] = status_of(port, "/api/v1/liveness") == 200
    t["exited"] = wait_for(lambda: not alive(old), 60, f"instance {i} exits")
    if hold:
        return t
    t["ready"] = wait_for(lambda: instance_pid(i) != old and status_of(port, "/api/v1/readiness") == 200, 120,
                          f"instance {i} is restarted and ready")
    return t


def rolling_restart(paths):
    phase(f"3. rolling restart of {INSTANCES} instances under {PACED_RATE:g} requests a second")
    _, keys = customer("rolling@cluster.local", 8)
    client = Paced(PACED_RATE, keys, paths).start()
    time.sleep(2)
    timeline = []
    for i in range(1, INSTANCES + 1):
        t = restart(i)
        timeline.append((i, t))
        print(
            f"  instance {i}: readiness 503 after {t['unready'] - t['term']:.2f} s (liveness "
            f"{'200' if t['live'] else 'not 200'} meanwhile), exited after {t['exited'] - t['term']:.2f} s, "
            f"restarted and ready after {t['ready'] - t['term']:.2f} s",
            flush=True,
        )
        check(t["live"], f"instance {i} still serves while its readiness fails")
    time.sleep(2)
    records = client.stop()
    bad = failures(records)
    elapsed = records[-1][1] - records[0][0]
    log = access_log()
    draining = retried = 0
    for i, t in timeline:
        port = f"127.0.0.1:{instance_port(i)}"
        for row in log:
            if not (t["term"] <= row["start"] <= t["exited"] + 1):
                continue
            if row["upstreams"] and row["upstreams"][-1] == port:
                draining += 1
            if port in row["upstreams"][:-1]:
                retried += 1
    figure(f"rolling restart: {len(records)} requests in {elapsed:.1f} s ({len(records) / elapsed:.0f}/s), "
           f"failed: {len(bad)}; answered by an instance between its SIGTERM and its exit: {draining}; "
           f"retried by nginx on another instance: {retried}")
    if bad:
        print(Counter(str(r[2]) for r in bad))
    check(not bad, "no request failed during the rolling restart")


# ------------------------------------------------------------------ 4. kill -9


def ledger(customer_id):
    month = (ENV.get("LINECAST_NOW") or time.strftime("%Y-%m-%dT", time.gmtime()))[:7]
    key = f"{ENV['CLUSTER_REDIS_NAMESPACE']}:q:{customer_id}:{month}"
    out = subprocess.run(["redis-cli", "-u", ENV["CLUSTER_REDIS_URL"], "--raw", "HGETALL", key],
                         capture_output=True, text=True, check=True).stdout.split()
    fields = dict(zip(out[::2], out[1::2]))
    entries = {f: tuple(int(x) for x in v.split(":")) for f, v in fields.items() if f != "closed"}
    return int(fields.get("closed", 0)), entries


def kill_nine(paths):
    phase(f"4. kill -9 of one instance under {PACED_RATE:g} requests a second")
    email = "crash@cluster.local"
    customer_id, keys = customer(email, 8)
    client = Paced(PACED_RATE, keys, paths).start()
    time.sleep(4)
    victim = 2
    port = f"127.0.0.1:{instance_port(victim)}"
    pid = instance_pid(victim)
    t_kill = time.time()
    os.kill(pid, signal.SIGKILL)
    time.sleep(4)
    records = client.stop()
    in_flight = sum(1 for start, end, _ in records if start <= t_kill < end)
    bad = failures(records)
    served = sum(1 for r in records if r[2] == 200)
    # Back to whole: the supervisor restarts it.
    wait_for(lambda: instance_pid(victim) != pid and status_of(instance_port(victim), "/api/v1/readiness") == 200,
             120, "the killed instance is restarted and ready")
    # The survivors report, give back and close their leases within two sync
    # rounds of going idle; their counts reach the database within a second.
    deadline = time.time() + 20
    while True:
        closed, entries = ledger(customer_id)
        if len(entries) <= 1 or time.time() > deadline:
            break
        time.sleep(0.5)
    db = monthly(email)
    log = access_log()
    retried = [r for r in log if len(r["upstreams"]) > 1 and port in r["upstreams"][:-1]
               and t_kill - 5 <= r["start"] <= t_kill + 5]
    # The crash bound: what the instance served since its last flush, a
    # flush a second (plus the flush's own time: 0.25 s allowed).
    def answered_by_victim_within(seconds):
        return sum(1 for r in log if r["upstreams"] and r["upstreams"][-1] == port and r["status"] == 200
                   and t_kill - seconds <= r["end"] <= t_kill + 0.05)

    last_second, bound = answered_by_victim_within(1.0), answered_by_victim_within(1.25)
    forfeit = sum(g - s for g, s in entries.values())
    lost = served - db
    figure(f"kill -9: {len(records)} requests, failed: {len(bad)}, in flight at the kill: {in_flight}, "
           f"failed on the killed instance and retried by nginx on another: {len(retried)}")
    figure(f"kill -9: served 200: {served}, database count: {db} (short by {lost}; the killed instance "
           f"answered {last_second} in its last second, {bound} in its last 1.25 s); lease entries left: {len(entries)}, "
           f"quota reserved and never served: {forfeit} (bound: one block, 1024)")
    if bad:
        print(Counter(str(r[2]) for r in bad))
    check(len(bad) <= in_flight, f"failed requests ({len(bad)}) are no more than were in flight ({in_flight})")
    check(len(entries) <= 1, f"only the dead instance's lease is left in the ledger ({entries})")
    check(0 <= forfeit <= 1024, f"the dead instance's lease keeps at most one block reserved ({forfeit})")
    check(lost <= bound, f"the database is short by at most the killed instance's last second ({lost} <= {bound})")
    check(-lost <= in_flight, f"nothing counted twice beyond the requests in flight ({-lost} <= {in_flight})")


# ------------------------------------------------------------------ 5. event stream


class Stream:
    def __init__(self, last_id=None):
        self.conn = http.client.HTTPConnection(HOST, PORT, timeout=40)
        headers = {"X-API-Key": KEY, "Accept": "text/event-stream"}
        if last_id:
            headers["Last-Event-ID"] = last_id
        self.conn.request("GET", "/api/v1/events?types=release&sport=nba", headers=headers)
        self.res = self.conn.getresponse()
        if self.res.status != 200:
            fail(f"the event stream opens through the balancer (got {self.res.status}: {self.res.read()[:200]})")
        self.upstream = (self.res.getheader("X-Linecast-Upstream") or "").split(",")[-1].strip()

    def next(self):
        """The next event as a dict of its fields, or None at the end of the stream."""
        fields = {}
        while True:
            line = self.res.readline()
            if not line:
                return None
            line = line.decode().rstrip("\r\n")
            if line == "":
                if fields:
                    return fields
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value.lstrip(" ")

    def until_release(self, seen, seconds=30):
        """Reads until a release event not in `seen` arrives; returns it and what came before."""
        deadline = time.time() + seconds
        before = []
        while time.time() < deadline:
            event = self.next()
            if event is None:
                fail("the stream ended while waiting for a release event")
            if event.get("event") == "release" and event.get("id") not in seen:
                return event, before
            before.append(event)
        fail(f"a release event arrived within {seconds} s")

    def close(self):
        self.conn.close()


def events():
    phase("5. an event stream reconnects with Last-Event-ID to another instance and misses no release")
    manifest = f"{ENV['CLUSTER_STORE_PREFIX']}/releases/nba/{ENV['CLUSTER_TODAY']}.json"

    def publish():
        subprocess.run([sys.executable, os.path.join(REPO, "deploy/local/s3.py"), "republish",
                        ENV["CLUSTER_S3_ENDPOINT"], ENV["CLUSTER_BUCKET"], manifest], check=True)

    stream = Stream()
    ports = {f"127.0.0.1:{instance_port(i)}": i for i in range(1, INSTANCES + 1)}
    victim = ports.get(stream.upstream)
    if victim is None:
        fail(f"the stream names its instance ({stream.upstream!r})")
    time.sleep(1.5)  # the watchers' first rounds are long done; one more round
    publish()
    first, _ = stream.until_release(set())
    print(f"  release 1 on instance {victim}: id {first['id']}", flush=True)
    # Stop the stream's instance and keep it down until the client is back.
    hold = f"{RUN}/instance-{victim}.hold"
    open(hold, "w").close()
    try:
        t = restart(victim, hold=True)
        during = []
        while True:
            event = stream.next()
            if event is None:
                break
            during.append(event)
        stream.close()
        print(f"  instance {victim} stopped; its stream ended {time.time() - t['term']:.1f} s after SIGTERM "
              f"(events meanwhile: {len(during)})", flush=True)
        publish()  # release 2, while the client is disconnected
        time.sleep(2.5)  # the other instances' watchers poll every second
        again = Stream(last_id=first["id"])
        other = ports.get(again.upstream)
        second, before = again.until_release({first["id"]} | {e.get("id") for e in during})
        again.close()
    finally:
        os.remove(hold)
    data1, data2 = json.loads(first["data"]), json.loads(second["data"])
    figure(f"event stream: release 1 ({first['id']}) on instance {victim}; instance {victim} stopped; "
           f"release 2 published while disconnected; reconnected with Last-Event-ID to instance {other}, "
           f"which sent release 2 ({second['id']}); events before it on the new stream: {len(before)}")
    check(other is not None and other != victim, f"the client reconnected to another instance ({other} != {victim})")
    check(second["id"] > first["id"] and data2["version"] != data1["version"],
          "the release published while the client was away arrived after the reconnection")
    check(all(e.get("id") != first["id"] for e in before), "release 1 was not sent again")
    wait_for(lambda: status_of(instance_port(victim), "/api/v1/readiness") == 200, 120,
             f"instance {victim} is back after the hold")


# ------------------------------------------------------------------ 6. stream cap


def stream_cap():
    phase("6. a customer's stream cap holds across the instances")
    cap = int(ENV.get("LINECAST_MAX_STREAMS_PER_CUSTOMER", "5"))
    # Phase 5's last stream was closed by its client: the server notices at
    # its next ping (every 2 s) and gives the slot back then.
    time.sleep(5)
    streams = [Stream() for _ in range(cap)]
    spread = Counter(s.upstream for s in streams)
    refused = []
    for _ in range(INSTANCES):
        conn = http.client.HTTPConnection(HOST, PORT, timeout=10)
        conn.request("GET", "/api/v1/events?types=release&sport=nba", headers={"X-API-Key": KEY})
        res = conn.getresponse()
        refused.append((res.status, res.getheader("Retry-After"), res.getheader("X-Linecast-Upstream")))
        conn.close()
    for s in streams:
        s.close()
    figure(f"stream cap: {cap} streams open on {len(spread)} instances ({dict(spread)}); "
           f"the next ones: {[r[:2] for r in refused]} from {sorted({str(r[2]) for r in refused})}")
    check(len(spread) >= 2, f"the {cap} streams spread over several instances ({dict(spread)})")
    check(all(status == 429 and retry == "15" for status, retry, _ in refused),
          f"a stream past the cap is a 429 with Retry-After 15 on every instance ({refused})")


# ------------------------------------------------------------------ 7. PostgreSQL cut


CUT_SECONDS = float(ENV.get("PG_CUT_SECONDS", "20"))


def pg_proxy(command):
    """One command to the instances' PostgreSQL proxy (cluster.sh's cut_proxy.py)."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(ENV["CLUSTER_PG_PROXY"])
        s.sendall(command.encode() + b"\n")
        answer = s.makefile().readline()
    state = json.loads(answer)
    if "error" in state:
        fail(f"the PostgreSQL proxy refused {command!r}: {state['error']}")
    return state


def public_paths():
    """Unauthenticated routes that answer 200 here: the public feed, data
    status, edge picks and the API description."""
    paths = ["/api/v1/data-status/nba", "/api/v1/data-status/nfl", "/api/v1/edge-picks",
             "/api/v1/public/ml-picks/nba/moneyline", "/api/v1/public/ml-picks/nfl/spread", "/openapi.json"]
    ok = []
    for path in paths:
        conn = http.client.HTTPConnection(HOST, PORT, timeout=30)
        conn.request("GET", path)
        res = conn.getresponse()
        res.read()
        conn.close()
        if res.status == 200:
            ok.append(path)
    if len(ok) < 3:
        fail(f"at least 3 public routes answer 200 through the balancer (got {ok})")
    return ok


class Readiness:
    """Polls every instance's readiness directly, twice a second."""

    def __init__(self):
        self.records = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stopping.is_set():
            for i in range(1, INSTANCES + 1):
                self.records.append((time.time(), i, status_of(instance_port(i), "/api/v1/readiness", 2)))
            self.stopping.wait(0.5)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()
        self.thread.join()
        return self.records


def pg_cut(paths):
    phase(f"7. PostgreSQL cut for {CUT_SECONDS:g} s under load (a blackhole), then restored")
    email = "outage@cluster.local"
    _, keys = customer(email, 8)
    _, (unseen,) = customer("unseen@cluster.local", 1)
    public = public_paths()
    # Every key is used on every instance before the cut: each instance
    # knows each of them (a key cache is an instance's own).
    warm = 0
    for key in keys:
        for i in range(1, INSTANCES + 1):
            conn = http.client.HTTPConnection("127.0.0.1", instance_port(i), timeout=30)
            conn.request("GET", paths[0], headers={"X-API-Key": key})
            res = conn.getresponse()
            res.read()
            conn.close()
            if res.status != 200:
                fail(f"a key answers 200 on instance {i} before the cut (got {res.status})")
            warm += 1
    ready = Readiness().start()
    known = Paced(PACED_RATE / 2, keys, paths, workers=32).start()
    anonymous = Paced(8, [None], public, workers=4).start()
    time.sleep(3)
    t_cut = time.time()
    check(pg_proxy("cut")["cut"], "the instances' link to PostgreSQL is cut")
    time.sleep(2)
    started = time.time()
    unseen_status = get(paths[0], key=unseen)[0]
    unseen_seconds = time.time() - started
    time.sleep(max(0.0, t_cut + CUT_SECONDS - time.time()))
    t_restore = time.time()
    state = pg_proxy("restore")
    time.sleep(5)
    known_records, public_records = known.stop(), anonymous.stop()
    readiness = ready.stop()

    def during(records):
        return [r for r in records if r[0] >= t_cut and r[0] < t_restore]

    # A 429 is the per-key limit answering a burst (the paced client catches
    # up after requests that waited), not a failure to serve; it is not
    # counted either.
    known_bad = [r for r in known_records if r[2] not in (200, 429)]
    public_bad = failures(public_records)
    known_cut_bad = [r for r in during(known_records) if r[2] not in (200, 429)]
    limited = sum(1 for r in known_records if r[2] == 429)
    not_ready = [r for r in readiness if r[2] != 200]
    served = sum(1 for r in known_records if r[2] == 200)
    expected = warm + served
    figure(f"PostgreSQL cut: {t_restore - t_cut:.1f} s, {state['connections']} connections through the proxy; "
           f"known keys: {len(known_records)} requests ({len(during(known_records))} during the cut), "
           f"failed: {len(known_bad)} ({dict(Counter(str(r[2]) for r in known_bad))}), 429: {limited}; public: "
           f"{len(public_records)} requests ({len(during(public_records))} during the cut), not 200: {len(public_bad)} "
           f"({dict(Counter(str(r[2]) for r in public_bad))})")
    if known_cut_bad:
        first = min(r[0] for r in known_cut_bad) - t_cut
        figure(f"PostgreSQL cut: the first known-key failure {first:.1f} s into the cut")
    figure(f"PostgreSQL cut: a key never seen answered {unseen_status} in {unseen_seconds:.2f} s; readiness polls "
           f"not 200: {len(not_ready)} of {len(readiness)} "
           f"({dict(Counter(f'instance {r[1]}: {r[2]}' for r in not_ready))})")
    # The instances flush once PostgreSQL answers again (every second).
    deadline = time.time() + 20
    while True:
        db = monthly(email)
        if db == expected or time.time() > deadline:
            break
        time.sleep(0.5)
    # Each read of the usage is a request it counts too, this one included.
    reads, reported = 0, None
    deadline = time.time() + 20
    while time.time() < deadline:
        status, _, body = get("/api/v1/customers/me/usage", key=keys[0])
        if status == 200:
            reads += 1
            reported = json.loads(body)["monthly_requests"]
            if reported == expected + reads:
                break
        time.sleep(0.5)
    figure(f"PostgreSQL cut: served 200 to the customer: {expected} ({warm} before the load); monthly count in the "
           f"database {db}, as /customers/me/usage reports it {reported} at read {reads} (itself counted)")
    results = [
        (not public_bad, f"no public request failed during or around the cut ({len(public_bad)} of {len(public_records)})"),
        (not known_bad, f"keys used before the cut kept serving through it ({len(known_bad)} of {len(known_records)} "
                        f"neither 200 nor 429; needs LINECAST_DB_OUTAGE_GRACE_SECS)"),
        (unseen_status == 503 and unseen_seconds < 5,
         f"a key never seen is a fast 503 during the cut ({unseen_status} in {unseen_seconds:.2f} s)"),
        (not not_ready, f"readiness answered 200 on every instance throughout ({len(not_ready)} polls not 200)"),
        (db == expected, f"the monthly count in the database equals the requests served ({db} vs {expected})"),
        (reported == expected + reads,
         f"/customers/me/usage reports the requests served exactly ({reported} vs {expected} + {reads} reads)"),
    ]
    for ok, what in results:
        print(f"{'ok' if ok else 'FAIL'}: {what}", flush=True)
    if not all(ok for ok, _ in results):
        fail("the PostgreSQL cut phase")


def main():
    started = time.time()
    for i in range(1, INSTANCES + 1):
        check(status_of(instance_port(i), "/api/v1/readiness") == 200, f"instance {i} is ready")
    smoke_and_export()
    paths = served_paths()
    load(paths)
    rolling_restart(paths)
    kill_nine(paths)
    events()
    stream_cap()
    pg_cut(paths)
    print(f"\ncluster test: all passed in {time.time() - started:.0f} s. Figures:")
    for line in FIGURES:
        print(f"  {line}")


if __name__ == "__main__":
    main()
