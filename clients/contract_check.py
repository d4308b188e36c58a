"""Check the contract a generated Python client sees, beyond "it parses".

Usage: python3 clients/contract_check.py BASE_URL API_KEY PACKAGE_DIR
(PACKAGE_DIR holds the `linecast_client` package openapi-python-client wrote:
  openapi-python-client generate --path openapi.json --meta none \
      --output-path PACKAGE_DIR/linecast_client --overwrite)

Checks, through the generated client only:
- one season of /results paged to the end, pinned to its snapshot;
- that season's Parquet export read as bytes (`.parsed`, a `File`) and opened with
  pyarrow: its rows equal the paged total and its metadata names the snapshot;
- a 400's error body parsed with the generated ErrorBody: its `code`;
- dates come back as `datetime.date` and timestamps as `datetime.datetime`
  (the document must declare `format: date` / `format: date-time` for the
  generator to convert them).
Every check runs; each prints "ok: ..." or "FAIL: ..."; the exit status is 1
when any failed.
"""
import datetime
import io
import json
import sys

import pyarrow.parquet as pq

base, key, package_dir = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, package_dir)

from linecast_client import AuthenticatedClient  # noqa: E402
from linecast_client.api.data import predictions  # noqa: E402
from linecast_client.api.history import result_seasons, results, results_export  # noqa: E402
from linecast_client.api.public import data_status  # noqa: E402
from linecast_client.models import (  # noqa: E402
    DataStatusResponse,
    ErrorBody,
    ExportFormat,
    ModelTypeCode,
    PredictionsResponse,
    ResultsResponse,
    SportCode,
)
from linecast_client.types import File, Unset  # noqa: E402

client = AuthenticatedClient(base_url=base, token=key, prefix="", auth_header_name="X-API-Key")
SPORT, MODEL = SportCode.NBA, ModelTypeCode.WON_ON_POINTS
failures: list[str] = []


def check(cond, what):
    if cond:
        print(f"ok: {what}")
    else:
        print(f"FAIL: {what}")
        failures.append(what)
    return bool(cond)


def note(what):
    print(f"note: {what}")


# --- one season paged to the end -------------------------------------------
seasons = result_seasons.sync(SPORT, MODEL, client=client)
check(seasons is not None and len(seasons.seasons) > 0, "result seasons lists seasons")
season = seasons.seasons[1] if len(seasons.seasons) >= 2 else seasons.seasons[0]
rows, offset, snapshot, total, first_page = [], 0, None, None, None
while offset is not None:
    page = results.sync(
        SPORT, MODEL, client=client, season=season, limit=250, offset=offset,
        **({"snapshot": snapshot} if snapshot else {}),
    )
    if not check(isinstance(page, ResultsResponse), f"results page at offset {offset} parses into ResultsResponse"):
        sys.exit(1)
    first_page = first_page or page
    if snapshot is None:
        check(isinstance(page.snapshot, str) and len(page.snapshot) == 64, "the first page names a 64-hex snapshot")
    snapshot, total = page.snapshot, page.total
    rows.extend(page.results)
    offset = page.next_offset if not isinstance(page.next_offset, Unset) else None
check(len(rows) == total, f"paged season {season} to the end: {len(rows)} rows == total {total}")

# --- the season's Parquet export, as bytes, through the generated client ---
exported = results_export.sync_detailed(SPORT, MODEL, client=client, season=season, format_=ExportFormat.PARQUET)
check(exported.status_code == 200, f"parquet export of {season}: HTTP {exported.status_code}")
# The export's 200 is `format: binary` (Parquet first) and the generator is
# run with clients/openapi-python-client.yaml, so `.parsed` is a `File`
# holding the bytes: never text.
parsed = exported.parsed
check(isinstance(parsed, File), f"export .parsed is a File, not text (got {type(parsed).__name__})")
content = parsed.payload.read()
check(
    isinstance(content, bytes) and content.startswith(b"PAR1") and content == exported.content,
    f"export .parsed holds the file's bytes, starting PAR1 ({len(content)} bytes)",
)
try:
    table = pq.read_table(io.BytesIO(content))
except Exception as exc:  # noqa: BLE001 - report any reader failure as a failed check
    check(False, f"pyarrow opens the export ({exc})")
else:
    check(table.num_rows == len(rows), f"parquet rows {table.num_rows} == rows paged {len(rows)}")
    meta = table.schema.metadata or {}
    check(meta.get(b"linecast.snapshot", b"").decode() == snapshot, "parquet metadata names the paged snapshot")
check(exported.headers.get("x-linecast-snapshot") == snapshot, "export header names the paged snapshot")


# --- an error's code, read with the generated ErrorBody ---------------------
def error_code(resp):
    """The `code` of an error response: typed from ErrorBody when the model has it, else from the JSON."""
    body = resp.parsed
    if isinstance(body, ErrorBody) and hasattr(body, "code"):
        code = body.code
        return getattr(code, "value", code), "ErrorBody.code"
    return json.loads(resp.content).get("code"), "raw JSON (ErrorBody has no `code`)"


for kwargs, want_code, want_param in (
    ({"limit": 0}, "invalid_parameter", "limit"),
    ({"snapshot": "not-a-snapshot"}, "invalid_snapshot", "snapshot"),
):
    resp = results.sync_detailed(SPORT, MODEL, client=client, season=season, **kwargs)
    label = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    check(resp.status_code == 400, f"results with {label} is a 400 (HTTP {resp.status_code})")
    check(isinstance(resp.parsed, ErrorBody), f"the 400 parses into ErrorBody (got {type(resp.parsed).__name__})")
    code, source = error_code(resp)
    check(code == want_code, f"400 code is {want_code} (got {code!r}, read from {source})")
    parameter = getattr(resp.parsed, "parameter", None)
    check(parameter == want_param, f"400 names parameter {want_param} (got {parameter!r})")
    if isinstance(resp.parsed, ErrorBody) and want_code == "invalid_parameter":
        ts = resp.parsed.timestamp
        check(isinstance(ts, datetime.datetime), f"ErrorBody.timestamp is datetime.datetime (got {type(ts).__name__})")


# --- dates and timestamps as Python types ----------------------------------
def is_date(v):
    return isinstance(v, datetime.date) and not isinstance(v, datetime.datetime)


def check_type(owner, field, value, want):
    if value is None or isinstance(value, Unset):
        note(f"{owner}.{field} is null in this payload; type not checked")
        return
    ok = is_date(value) if want is datetime.date else isinstance(value, want)
    check(ok, f"{owner}.{field} is {want.__module__}.{want.__name__} (got {type(value).__name__} {value!r})")


if rows:
    check_type("ResultRow", "date", rows[0].date, datetime.date)
    stamped = (r.forecast_published_at for r in rows)
    published = next((v for v in stamped if isinstance(v, (str, datetime.datetime))), None)
    check_type("ResultRow", "forecast_published_at", published, datetime.datetime)
check_type("ResultsResponse", "last_updated", first_page.last_updated, datetime.datetime)
check_type("ResultsResponse", "source_start", first_page.source_start, datetime.date)
check_type("ResultsResponse", "source_end", first_page.source_end, datetime.date)

preds = predictions.sync(SPORT, MODEL, client=client)
if check(isinstance(preds, PredictionsResponse), "predictions parse into PredictionsResponse"):
    check_type("PredictionsResponse", "predictions_date", preds.predictions_date, datetime.datetime)
    if preds.games:
        check_type("PredictionGame", "date", preds.games[0].date, datetime.date)

status = data_status.sync(SPORT, client=client)
if check(isinstance(status, DataStatusResponse), "data-status parses into DataStatusResponse"):
    check_type("DataStatusResponse", "slate_date", status.slate_date, datetime.date)
    check_type("DataStatusResponse", "deadline", status.deadline, datetime.datetime)
    check_type("DataStatusResponse", "source_as_of", status.source_as_of, datetime.datetime)
    market = next(iter(status.markets.additional_properties.values()), None)
    if market is not None:
        check_type("MarketStatus", "published_at", market.published_at, datetime.datetime)
        check_type("MarketStatus", "source_as_of", market.source_as_of, datetime.datetime)
    check_type("ArtifactStatus", "predictions", status.artifacts.predictions, datetime.datetime)

if failures:
    print(f"contract check: {len(failures)} check(s) failed:")
    for f in failures:
        print(f"  - {f}")
    sys.exit(1)
print("contract check: all checks passed")
