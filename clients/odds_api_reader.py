"""A reader written for The Odds API's `bookmakers[]`, pointed at linecast.

Usage: python3 clients/odds_api_reader.py BASE_URL API_KEY [SPORT]

`best_moneylines` below is what a client of The Odds API's
`/v4/sports/{sport}/odds?markets=h2h,spreads,totals&oddsFormat=american`
already does with each event: walk `bookmakers[].markets[].outcomes[]` and
keep the best price per outcome name. It runs unchanged on linecast's
`GET /api/v1/odds/{sport}/books` games (docs/clients.md), and the script
checks its answer against linecast's own `best`. Exits non-zero on the
first disagreement.
"""
import json
import sys
import urllib.request


def decimal(american):
    return 1 + (american / 100 if american > 0 else 100 / -american)


def best_moneylines(event):
    """The Odds API client code: the best h2h price per outcome name."""
    best = {}
    for bookmaker in event["bookmakers"]:
        for market in bookmaker["markets"]:
            if market["key"] != "h2h":
                continue
            for outcome in market["outcomes"]:
                held = best.get(outcome["name"])
                if held is None or decimal(outcome["price"]) > decimal(held[1]):
                    best[outcome["name"]] = (bookmaker["key"], outcome["price"])
    return best


def main():
    base, key = sys.argv[1].rstrip("/"), sys.argv[2]
    sport = sys.argv[3] if len(sys.argv) > 3 else "nba"
    request = urllib.request.Request(f"{base}/api/v1/odds/{sport}/books", headers={"X-API-Key": key})
    with urllib.request.urlopen(request) as response:
        events = json.load(response)["games"]
    checked = 0
    for event in events:
        best = best_moneylines(event)
        for side, team in (("home", event["home_team"]), ("away", event["away_team"])):
            served = event["best"]["h2h"][side]
            if served is None:
                if team in best:
                    sys.exit(f"FAIL: {event['id']} {side}: linecast has no best, the reader has {best[team]}")
                continue
            if best.get(team, (None, None))[1] != served["price"]:
                sys.exit(f"FAIL: {event['id']} {side}: reader {best.get(team)} vs linecast {served}")
            checked += 1
    if checked == 0:
        sys.exit("FAIL: no moneyline to compare")
    print(f"ok: a reader written for The Odds API found linecast's best moneyline on {checked} sides")


if __name__ == "__main__":
    main()
