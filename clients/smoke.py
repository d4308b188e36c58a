"""Drive a running linecast through a client generated from /openapi.json.

Usage: python3 clients/smoke.py BASE_URL API_KEY PACKAGE_DIR
(PACKAGE_DIR holds the `linecast_client` package openapi-python-client wrote.)
Exits non-zero on the first surprise.
"""
import datetime
import sys

base, key, package_dir = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, package_dir)

from linecast_client import AuthenticatedClient  # noqa: E402
from linecast_client.api.account import create_api_key, list_api_keys, rename_api_key, revoke_api_key  # noqa: E402
from linecast_client.api.data import game_odds_history, odds_books, predictions  # noqa: E402
from linecast_client.api.history import (  # noqa: E402
    density,
    model_calibration,
    model_tracking,
    result_seasons,
    results,
    results_export,
    rolling,
    summary,
    team_form,
)
from linecast_client.api.strategies import strategies, strategy_replay  # noqa: E402
from linecast_client.api.webhooks import create_endpoint, delete_endpoint, list_endpoints, rotate_secret  # noqa: E402
from linecast_client.models import (  # noqa: E402
    AccountingCode,
    CreateEndpointRequest,
    EndpointWithSecret,
    BooksResponse,
    CalibrationResponse,
    CalibrationSourceCode,
    CreateKeyRequest,
    DensityResponse,
    ExportFormat,
    ModelTypeCode,
    OddsHistoryResponse,
    PredictionsResponse,
    RenameKeyRequest,
    ReplayResponse,
    ResultsResponse,
    RollingResponse,
    SportCode,
    StrategiesResponse,
    StrategyId,
    SummaryResponse,
    TeamFormResponse,
    TrackingResponse,
)

client = AuthenticatedClient(base_url=base, token=key, prefix="", auth_header_name="X-API-Key")


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)
    print(f"ok: {what}")


p = predictions.sync(SportCode.NBA, ModelTypeCode.WON_ON_POINTS, client=client)
check(isinstance(p, PredictionsResponse) and p.sport == "nba", "predictions parse into the generated model")

books = odds_books.sync(SportCode.NBA, client=client)
check(isinstance(books, BooksResponse) and books.games, "books parse into the generated model")
game = next(g for g in books.games if g.bookmakers)
check(
    all(o.name in (game.home_team, game.away_team) for b in game.bookmakers for m in b.markets if m.key == "h2h" for o in m.outcomes),
    "every h2h outcome names one of the game's teams",
)
one = odds_books.sync(SportCode.NBA, client=client, game_id=game.game_id)
check(isinstance(one, BooksResponse) and [g.game_id for g in one.games] == [game.game_id], "books filtered to one game")
history = game_odds_history.sync(game.game_id, client=client)
check(isinstance(history, OddsHistoryResponse) and history.prices, "a game's odds history parses")
check(
    all(a.published_at <= b.published_at for a, b in zip(history.prices, history.prices[1:])),
    "the odds history lists prices oldest first",
)

# Webhook endpoints: created (the secret shown once), listed without it,
# the secret rotated, deleted. The receiver is a public address written as
# one (no lookup); nothing listens for it here.
made = create_endpoint.sync(
    client=client,
    body=CreateEndpointRequest(url="https://93.184.216.34/linecast", event_types=["release.published"], sports=["nba"]),
)
check(isinstance(made, EndpointWithSecret) and made.secret.startswith("whsec_"), "a webhook endpoint and its secret")
listed = list_endpoints.sync(client=client)
check(any(e.id == made.endpoint.id for e in listed), "the endpoint is listed")
rotated = rotate_secret.sync(made.endpoint.id, client=client)
check(isinstance(rotated, EndpointWithSecret) and rotated.secret != made.secret, "the secret rotates")
check(isinstance(rotated.endpoint.previous_secret_until, datetime.datetime), "the previous secret signs until an instant")
gone = delete_endpoint.sync(made.endpoint.id, client=client)
check(gone is not None and not any(e.id == made.endpoint.id for e in list_endpoints.sync(client=client)), "the endpoint is deleted")

seasons = result_seasons.sync(SportCode.NBA, ModelTypeCode.WON_ON_SPREAD, client=client)
season = seasons.seasons[1]
rows, offset, snapshot, total = [], 0, None, None
while offset is not None:
    page = results.sync(
        SportCode.NBA, ModelTypeCode.WON_ON_SPREAD, client=client, season=season, limit=250, offset=offset,
        **({"snapshot": snapshot} if snapshot else {}),
    )
    check(isinstance(page, ResultsResponse), f"results page at offset {offset}")
    check(page.returned == len(page.results), "returned equals the rows on the page")
    snapshot, total = page.snapshot, page.total
    rows.extend(page.results)
    offset = page.next_offset
check(len(rows) == total, f"paged season {season} to the end: {len(rows)} rows == total {total}")
for fmt, magic in ((ExportFormat.CSV, b"date,"), (ExportFormat.PARQUET, b"PAR1")):
    exported = results_export.sync_detailed(
        SportCode.NBA, ModelTypeCode.WON_ON_SPREAD, client=client, season=season, format_=fmt
    )
    check(exported.status_code == 200 and exported.content.startswith(magic), f"export {fmt.value} through the client")
    check(exported.headers.get("x-linecast-snapshot") == snapshot, f"export {fmt.value} names the paged snapshot")

for mt in (ModelTypeCode.OVER_UNDER, ModelTypeCode.WON_ON_POINTS):
    summ = summary.sync(SportCode.NBA, mt, client=client)
    check(isinstance(summ, SummaryResponse) and summ.summaries, f"summary {mt.value} parses into typed entries")
    side = summ.summaries[0].over if mt == ModelTypeCode.OVER_UNDER else summ.summaries[0].home
    check(side is not None, f"summary {mt.value} carries its side rate as a typed field")
tracking = model_tracking.sync(SportCode.NBA, ModelTypeCode.WON_ON_POINTS, client=client)
check(isinstance(tracking, TrackingResponse) and tracking.archive_games >= tracking.total_games, "tracking parses")
for source in CalibrationSourceCode:
    cal = model_calibration.sync(SportCode.NBA, ModelTypeCode.WON_ON_SPREAD, client=client, source=source)
    check(isinstance(cal, CalibrationResponse) and cal.bins == 10, f"calibration {source.value} parses")
    # CLV on kept releases is in probability points in every market; on
    # result rows a spread's is in points.
    units = {"kept_releases": "probability_points", "result_rows": "points"}
    check(
        all(len(m.reliability_bins) == 10 and m.clv.unit.value == units[m.clv.basis.value] for m in cal.models),
        f"calibration {source.value} carries typed bins and CLV",
    )
cal = model_calibration.sync(SportCode.NBA, ModelTypeCode.WON_ON_SPREAD, client=client)
blend = next(m for m in cal.models if m.model == "BLEND")
check(blend.skill_vs_market is not None and blend.skill_vs_market.n <= blend.n, "calibration skill parses")
form = team_form.sync(SportCode.NBA, ModelTypeCode.WON_ON_POINTS, client=client)
check(isinstance(form, TeamFormResponse) and all(0 <= t.win_pct <= 1 for t in form.teams), "team form parses")
curves = rolling.sync(SportCode.NBA, ModelTypeCode.WON_ON_POINTS, client=client)
check(isinstance(curves, RollingResponse) and curves.seasons, "rolling parses")
grid = density.sync(SportCode.NBA, ModelTypeCode.WON_ON_POINTS, client=client)
check(isinstance(grid, DensityResponse) and len(grid.cells) == len(grid.y_labels), "density parses")

board = strategies.sync(SportCode.NBA, ModelTypeCode.WON_ON_POINTS, client=client, accounting=AccountingCode.RECORDED_V2)
check(isinstance(board, StrategiesResponse) and len(board.strategies) == 16, "sixteen typed strategy entries")
first = board.strategies[0]
replay = strategy_replay.sync(
    SportCode.NBA, ModelTypeCode.WON_ON_POINTS, StrategyId(first.id), client=client,
    accounting=AccountingCode.RECORDED_V2, include_excluded=True,
)
check(isinstance(replay, ReplayResponse), "replay parses into the generated model")
check(replay.strategy.wins == first.wins and replay.strategy.losses == first.losses, "replay equals its entry")
check(len(replay.games) + len(replay.excluded_rows) == replay.games_considered, "games plus excluded rows are the games considered")

created = create_api_key.sync(client=client, body=CreateKeyRequest(name="generated-client"))
new_key = created.api_key
check(new_key.startswith("sk_service_"), "created a key, shown once")
masked = new_key[: len("sk_service_") + 4] + "*****"
listed = [k.api_key for k in list_api_keys.sync(client=client)]
check(masked in listed and new_key not in listed, "the list shows the key masked only")
renamed = rename_api_key.sync(client=client, body=RenameKeyRequest(api_key_to_rename=masked, new_name="renamed"))
check(renamed is not None and "renamed" in renamed.message, "renamed by masked form")
revoked = revoke_api_key.sync(new_key, client=client)
check(revoked is not None and "revoked" in revoked.message, "revoked by full key")
print("generated client: all calls succeeded")
