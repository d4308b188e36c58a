#!/usr/bin/env python3
"""A webhook receiver built on `standardwebhooks` (PyPI), a library nobody
here wrote, against a running linecast (demo mode, loopback receivers
allowed, its store under STORE_DIR).

It creates an endpoint for nba `release.published`, then checks:
- every delivery verifies with the endpoint's secret (and, after a secret
  rotation, with the old and the new secret alike: both signatures are sent);
- a test event arrives as `webhook.test`;
- two predictions releases published back to back, the first delivery
  refused once (500), arrive in publication order: the second waits for
  the first's retry;
- each release's `digest` is the SHA-256 of the bytes written here, its
  `published_at` reads back that release with `as_of`, and
  `game_ids_changed` names the one game whose row was changed here;
- after deduplication on `webhook-id`, one accepted delivery per id.

Usage: webhook_receiver.py BASE_URL API_KEY STORE_DIR
"""

import hashlib
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

BASE, KEY, STORE = sys.argv[1], sys.argv[2], sys.argv[3]
PREDICTIONS = os.path.join(STORE, "predictions", "nba", "won_on_points.csv")

received = []  # (headers, body, status answered)
lock = threading.Lock()
refuse_first_release = {"left": 1}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        headers = {k.lower(): v for k, v in self.headers.items()}
        status = 200
        with lock:
            kind = json.loads(body).get("type")
            if kind == "release.published" and refuse_first_release["left"] > 0:
                refuse_first_release["left"] -= 1
                status = 500
            received.append((headers, body, status))
        self.send_response(status)
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *_):
        pass


def api(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method)
    req.add_header("X-API-Key", KEY)
    if data is not None:
        req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.loads(res.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def accepted():
    with lock:
        return [(h, b) for h, b, s in received if s == 200]


def wait_for(what, check, limit=180):
    deadline = time.time() + limit
    while time.time() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    sys.exit(f"webhook receiver: {what} did not arrive within {limit} s; received {len(received)}")


def verified(secret, headers, body):
    return Webhook(secret).verify(body, headers)


def fail(message):
    sys.exit(f"webhook receiver: {message}")


def publish(text):
    """Writes a new version of the nba moneyline predictions in one rename."""
    staged = PREDICTIONS + ".staged"
    with open(staged, "w", newline="") as f:
        f.write(text)
    os.replace(staged, PREDICTIONS)
    return hashlib.sha256(text.encode()).hexdigest()


def changed(text, row_index):
    """The CSV with BLEND of data row `row_index` moved by 0.0001, and that
    game's id (sport, date, away, home)."""
    lines = text.splitlines(keepends=True)
    header = lines[0].rstrip("\r\n").split(",")
    blend, date, away, home = (header.index(c) for c in ("BLEND", "date", "away_team", "home_team"))
    cells = lines[1 + row_index].rstrip("\r\n").split(",")
    same = [l for l in lines[1:] if l.split(",")[date] == cells[date] and l.split(",")[away] == cells[away]
            and l.split(",")[home] == cells[home]]
    if len(same) != 1:
        return None
    p = float(cells[blend])
    cells[blend] = f"{p + 0.0001 if p < 0.99 else p - 0.0001:.4f}"
    ending = "\r\n" if lines[1 + row_index].endswith("\r\n") else "\n"
    lines[1 + row_index] = ",".join(cells) + ending
    game_id = f"nba-{cells[date].replace('-', '')}-{cells[away]}-{cells[home]}"
    return "".join(lines), game_id


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hook"

    status, created = api("POST", "/api/v1/webhooks/endpoints",
                          {"url": url, "event_types": ["release.published"], "sports": ["nba"]})
    if status != 201:
        fail(f"creating the endpoint answered {status}: {created}")
    endpoint, secret = created["endpoint"]["id"], created["secret"]

    # A test event.
    status, queued = api("POST", f"/api/v1/webhooks/endpoints/{endpoint}/test")
    if status != 202:
        fail(f"send-test answered {status}: {queued}")
    test_id = queued["message_id"]
    headers, body = wait_for("the test event", lambda: next(
        ((h, b) for h, b in accepted() if h["webhook-id"] == test_id), None))
    if verified(secret, headers, body)["type"] != "webhook.test":
        fail("the test event's type")

    # Two releases back to back; the first delivery is refused once.
    with open(PREDICTIONS, newline="") as f:
        original = f.read()
    rows = len(original.splitlines()) - 1
    unique = [i for i in range(rows) if changed(original, i)]
    if len(unique) < 2:
        fail("fewer than two games of the demo predictions have a unique id")
    first_text, first_game = changed(original, unique[0])
    # The second version keeps the first's change and adds its own.
    second_text, second_game = changed(first_text, unique[1])
    first_digest = publish(first_text)
    # Wait until the first release was attempted (and refused), then publish the second.
    wait_for("the first release's refused attempt", lambda: any(s == 500 for _, _, s in received))
    time.sleep(1.1)  # a later mtime than the first version's, on any filesystem
    second_digest = publish(second_text)

    def releases():
        out = []
        for h, b in accepted():
            event = json.loads(b)
            if event["type"] == "release.published" and event["data"]["digest"] in (first_digest, second_digest):
                out.append((h, b, event))
        return out if len(out) >= 2 else None

    got = wait_for("both releases", releases)
    events = [e for _, _, e in got]
    if [e["data"]["digest"] for e in events] != [first_digest, second_digest]:
        fail(f"releases out of order: {[e['data']['digest'] for e in events]}")
    for (h, b, e), game in zip(got, (first_game, second_game)):
        verified(secret, h, b)
        data = e["data"]
        if data["game_ids_changed"] != [game]:
            fail(f"game_ids_changed {data['game_ids_changed']}, expected [{game}]")
        if (data["sport"], data["artifact"], data["model_type"]) != ("nba", "predictions", "won_on_points"):
            fail(f"release names {data}")
        status, read = api("GET", data["link"])
        if status != 200 or read.get("release", {}).get("digest") != data["digest"]:
            fail(f"the link {data['link']} answered {status} with release {read.get('release')}")
    # The refused delivery and its retry carry one webhook-id.
    with lock:
        refused = [h["webhook-id"] for h, _, s in received if s == 500]
    if refused != [got[0][0]["webhook-id"]]:
        fail(f"the refused delivery {refused} is not the first release's {got[0][0]['webhook-id']}")

    # Rotation: both secrets verify the next delivery.
    status, rotated = api("POST", f"/api/v1/webhooks/endpoints/{endpoint}/rotate-secret")
    if status != 200:
        fail(f"rotate-secret answered {status}: {rotated}")
    new_secret = rotated["secret"]
    status, queued = api("POST", f"/api/v1/webhooks/endpoints/{endpoint}/test")
    rotated_id = queued["message_id"]
    headers, body = wait_for("the test after rotation", lambda: next(
        ((h, b) for h, b in accepted() if h["webhook-id"] == rotated_id), None))
    verified(new_secret, headers, body)
    verified(secret, headers, body)
    if len(headers["webhook-signature"].split(" ")) != 2:
        fail(f"two signatures expected during the rotation: {headers['webhook-signature']}")
    try:
        Webhook("whsec_" + "A" * 32).verify(body, headers)
        fail("a wrong secret verified")
    except WebhookVerificationError:
        pass

    # One accepted delivery per webhook-id.
    ids = [h["webhook-id"] for h, _ in accepted()]
    if len(ids) != len(set(ids)):
        fail(f"an id was accepted twice: {ids}")
    print(f"webhook receiver: {len(received)} deliveries, {len(set(ids))} ids, every signature verified "
          f"by standardwebhooks (rotation included), releases in order with digest and changed games")


if __name__ == "__main__":
    main()
