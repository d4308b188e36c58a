"""Read linecast's bulk exports the way a quant customer does (csv and
pyarrow) and compare them with the rows /results serves when paged.

Usage: python3 clients/export_check.py BASE_URL API_KEY
Exits non-zero on the first difference.
"""
import csv
import datetime
import io
import json
import sys
import urllib.request

import pyarrow.parquet as pq

base, key = sys.argv[1], sys.argv[2]
SPORT, MODEL = "nba", "won_on_spread"


def get(path):
    req = urllib.request.Request(base + path, headers={"X-API-Key": key})
    with urllib.request.urlopen(req) as res:
        return res.status, res.headers, res.read()


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)
    print(f"ok: {what}")


def paged(season):
    rows, offset, snapshot = [], 0, None
    while offset is not None:
        q = f"season={season}&limit=250&offset={offset}" + (f"&snapshot={snapshot}" if snapshot else "")
        _, _, body = get(f"/api/v1/results/{SPORT}/{MODEL}?{q}")
        page = json.loads(body)
        snapshot = page["snapshot"]
        rows.extend(page["results"])
        offset = page["next_offset"]
    return rows


def same(exported, served):
    """An exported cell (CSV text or a pyarrow value) against a /results value."""
    if served is None:
        return exported in ("", None)
    if isinstance(served, bool):
        return exported in (served, str(served).lower())
    if isinstance(served, (int, float)):
        return exported not in ("", None) and float(exported) == float(served)
    # Text columns Parquet types: an instant, a date, a number.
    if isinstance(exported, datetime.datetime):
        return exported == datetime.datetime.fromisoformat(served.replace("Z", "+00:00"))
    if isinstance(exported, datetime.date):
        return exported.isoformat() == served
    if isinstance(exported, (int, float)) and not isinstance(exported, bool):
        return float(exported) == float(served)
    return exported == served


_, _, body = get(f"/api/v1/results/{SPORT}/{MODEL}/seasons")
seasons = list(reversed(json.loads(body)["seasons"]))
for season in (seasons[-2], "all"):
    rows = []
    for s in seasons if season == "all" else [season]:
        rows.extend(paged(s))

    status, headers, body = get(f"/api/v1/results/{SPORT}/{MODEL}/export?season={season}&format=csv")
    check(status == 200 and headers.get("Content-Type", "").startswith("text/csv"), f"{season} CSV served")
    reader = csv.DictReader(io.StringIO(body.decode("utf-8")))
    exported = list(reader)
    check(len(exported) == len(rows), f"{season} CSV has the {len(rows)} rows /results pages")
    if season != "all":
        check(reader.fieldnames == list(rows[0].keys()), f"{season} CSV header is /results key order")
    for i, (cells, row) in enumerate(zip(exported, rows)):
        for name in reader.fieldnames:
            if not same(cells[name], row.get(name)):
                check(False, f"{season} CSV row {i} column {name}: {cells[name]!r} vs {row.get(name)!r}")
    check(True, f"{season} CSV cells equal the /results values")

    status, headers, body = get(f"/api/v1/results/{SPORT}/{MODEL}/export?season={season}&format=parquet")
    check(status == 200 and headers.get("Content-Type", "") == "application/vnd.apache.parquet", f"{season} Parquet served")
    table = pq.read_table(io.BytesIO(body))
    meta = {k.decode(): v.decode() for k, v in table.schema.metadata.items() if k.startswith(b"linecast.")}
    check(meta["linecast.snapshot"] == headers.get("X-Linecast-Snapshot"), f"{season} Parquet metadata names the snapshot")
    check(meta["linecast.season"] == season and meta["linecast.sport"] == SPORT, f"{season} Parquet metadata")
    check(str(table.schema.field("date").type) == "date32[day]", "date is date32")
    check(str(table.schema.field("push").type) == "bool", "push is boolean")
    check(str(table.schema.field("BLEND").type) == "double", "probabilities are float64")
    check(str(table.schema.field("forecast_published_at").type) == "timestamp[us, tz=UTC]", "forecast_published_at is a UTC timestamp")
    check(str(table.schema.field("model_training_through").type) == "date32[day]", "model_training_through is date32")
    check(str(table.schema.field("home_rest_days").type) == "int64", "home_rest_days is int64")
    check(str(table.schema.field("travel_km").type) == "double", "travel_km is float64")
    records = table.to_pylist()
    check(len(records) == len(rows), f"{season} Parquet has the {len(rows)} rows")
    for i, (record, row) in enumerate(zip(records, rows)):
        for name, value in record.items():
            if not same(value, row.get(name)):
                check(False, f"{season} Parquet row {i} column {name}: {value!r} vs {row.get(name)!r}")
    check(True, f"{season} Parquet values equal the /results values")
print("exports: CSV and Parquet equal /results")
