//! Strategy leaderboards and replays over HTTP (SERVICE-SPEC "Strategy
//! entry", "Strategies"; DESIGN "The sixteen strategies").

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::helpers::assert_error_shape;
use crate::results::{MODEL_TYPES, SPORTS, Session, store_seasons};

/// The sixteen ids with their names and signal labels, in catalog order.
const CATALOG: [(&str, &str, &str); 16] = [
    ("line-pb", "Follow +Line Move", "Line"),
    ("line-pf", "Fade +Line Move", "Line"),
    ("line-nb", "Follow -Line Move", "Line"),
    ("line-nf", "Fade -Line Move", "Line"),
    ("edge-pb", "Follow +Edge", "Δ Edge"),
    ("edge-pf", "Fade +Edge", "Δ Edge"),
    ("edge-nb", "Follow -Edge", "Δ Edge"),
    ("edge-nf", "Fade -Edge", "Δ Edge"),
    ("hybrid-pb-pb", "Follow +Move AND Follow +Edge", "Hybrid"),
    ("hybrid-pb-nf", "Follow +Move AND Fade -Edge", "Hybrid"),
    ("hybrid-nf-pb", "Fade -Move AND Follow +Edge", "Hybrid"),
    ("hybrid-nf-nf", "Fade -Move AND Fade -Edge", "Hybrid"),
    ("hybrid-pf-pf", "Fade +Move AND Fade +Edge", "Hybrid"),
    ("hybrid-pf-nb", "Fade +Move AND Follow -Edge", "Hybrid"),
    ("hybrid-nb-pf", "Follow -Move AND Fade +Edge", "Hybrid"),
    ("hybrid-nb-nb", "Follow -Move AND Follow -Edge", "Hybrid"),
];

const EXCLUSIONS: [&str; 4] = ["pass", "missing_signal", "missing_or_invalid_price", "unverified_final"];

fn market(model_type: &str) -> &'static str {
    match model_type {
        "over_under" => "over_under",
        "won_on_points" => "moneyline",
        _ => "spread",
    }
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("integer expected, got {v}"))
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Shape, identity and ranking rules of one leaderboard body.
fn assert_leaderboard(body: &Value, sport: &str, model_type: &str, accounting: &str) {
    let ctx = format!("{sport}/{model_type} {accounting} {}", body["season"]);
    assert_eq!(body["sport"], sport, "{ctx}");
    assert_eq!(body["market"], market(model_type), "{ctx}");
    assert_eq!(body["min_sample"], 30, "{ctx}");
    assert_eq!(body["accounting"], accounting, "{ctx}");
    assert!(body["price_basis"].as_str().is_some_and(|p| !p.is_empty()), "{ctx}");
    assert!(
        chrono::DateTime::parse_from_rfc3339(body["last_updated"].as_str().unwrap()).is_ok(),
        "{ctx}"
    );
    let entries = body["strategies"].as_array().unwrap();
    assert_eq!(entries.len(), 16, "{ctx}");
    let by_id: BTreeMap<&str, &Value> = entries.iter().map(|e| (e["id"].as_str().unwrap(), e)).collect();
    for (id, name, signal) in CATALOG {
        let e = by_id.get(id).unwrap_or_else(|| panic!("{ctx}: {id} missing"));
        assert_eq!(
            (e["name"].as_str(), e["signal"].as_str()),
            (Some(name), Some(signal)),
            "{ctx} {id}"
        );
    }
    let mut ranked_seen = 0;
    let mut previous: Option<&Value> = None;
    for e in entries {
        let (wins, losses, n) = (u(&e["wins"]), u(&e["losses"]), u(&e["n"]));
        let ctx = format!("{ctx}: {e}");
        assert_eq!(n, wins + losses, "n counts decisive bets");
        assert_eq!(e["ranked"], n >= 30, "{ctx}: ranked only with n >= min_sample");
        if e["ranked"] == true {
            ranked_seen += 1;
            assert_eq!(e["rank"], ranked_seen, "{ctx}: ranks are 1-based in order");
            assert!(e["roi"].is_number(), "{ctx}");
            if let Some(p) = previous {
                assert!(
                    p["ranked"] == true && p["roi"].as_f64() >= e["roi"].as_f64(),
                    "{ctx}: ranked by ROI descending"
                );
            }
        } else {
            assert!(e["rank"].is_null(), "{ctx}: unranked entries have a null rank");
            if let Some(p) = previous.filter(|p| p["ranked"] == false) {
                assert!(u(&p["n"]) >= n, "{ctx}: unranked ordered by n descending");
            }
        }
        previous = Some(e);
        let win_pct = e["win_pct"].as_f64().unwrap();
        if n > 0 {
            assert!(
                (win_pct - (wins as f64 * 100.0 / n as f64)).abs() < 0.006,
                "{ctx}: win_pct is W / (W + L) in percent"
            );
        }
        if accounting == "recorded_v2" {
            let pushes = u(&e["pushes"]);
            assert_eq!(e["record"], format!("{wins}-{losses}-{pushes}"), "{ctx}");
            let exclusions = e["exclusions"].as_object().unwrap();
            assert_eq!(
                exclusions.keys().map(String::as_str).collect::<Vec<_>>(),
                EXCLUSIONS,
                "{ctx}"
            );
            let excluded: u64 = exclusions.values().map(u).sum();
            assert_eq!(
                u(&e["candidates"]),
                wins + losses + pushes + excluded,
                "{ctx}: candidates"
            );
            if wins + losses + pushes == 0 {
                assert!(e["roi"].is_null(), "{ctx}: no eligible bet gives a null ROI");
            }
        } else {
            assert_eq!(e["record"], format!("{wins}-{losses}"), "{ctx}");
            for absent in ["pushes", "candidates", "exclusions"] {
                assert!(e.get(absent).is_none(), "{ctx}: {absent} is recorded_v2 only");
            }
        }
    }
}

/// A bet's side belongs to the market, its price is the recorded price of
/// that side (legacy_v1: -110 for spreads and totals), and a win pays the
/// price's profit on one unit.
fn assert_price_and_profit(g: &Value, model_type: &str, accounting: &str, ctx: &str) {
    let sides = if model_type == "over_under" {
        ["over", "under"]
    } else {
        ["home", "away"]
    };
    assert!(sides.contains(&g["side"].as_str().unwrap()), "{ctx}: {g}");
    let price = g["price"].as_f64().unwrap();
    assert!(price.abs() >= 100.0, "{ctx}: an American price: {g}");
    if accounting == "legacy_v1" && model_type != "won_on_points" {
        assert_eq!(
            g["price"], -110,
            "{ctx}: legacy_v1 prices spreads and totals at -110: {g}"
        );
    }
    if g["outcome"] == "win" {
        let profit = if price > 0.0 { price / 100.0 } else { 100.0 / -price };
        assert!(
            (g["profit_units"].as_f64().unwrap() - round4(profit)).abs() < 1e-9,
            "{ctx}: a win pays the price: {g}"
        );
    }
}

/// ROI is profit over stakes in percent (stakes include pushes under
/// recorded_v2), null without a stake.
fn assert_roi(entry: &Value, games: &[Value], ctx: &str) {
    let stakes = games.len() as f64;
    if games.is_empty() {
        assert!(entry["roi"].is_null(), "{ctx}: no stake, null ROI: {entry}");
    } else {
        let profit: f64 = games.iter().map(|g| g["profit_units"].as_f64().unwrap()).sum();
        let roi = entry["roi"].as_f64().unwrap();
        assert!(
            (roi - profit / stakes * 100.0).abs() < 0.006,
            "{ctx}: roi = profit / stakes: {entry}"
        );
    }
}

/// One replay's totals equal its leaderboard entry exactly.
fn assert_replay_matches(replay: &Value, entry: &Value, model_type: &str, accounting: &str, ctx: &str) {
    assert_eq!(
        &replay["strategy"], entry,
        "{ctx}: the replay's entry is the leaderboard entry"
    );
    let games = replay["games"].as_array().unwrap();
    let count = |outcome: &str| games.iter().filter(|g| g["outcome"] == outcome).count() as u64;
    let (wins, losses, pushes) = (count("win"), count("loss"), count("push"));
    assert_eq!(
        wins + losses + pushes,
        games.len() as u64,
        "{ctx}: every game is a win, loss or push"
    );
    assert_eq!(u(&entry["wins"]), wins, "{ctx}");
    assert_eq!(u(&entry["losses"]), losses, "{ctx}");
    assert_eq!(u(&entry["n"]), wins + losses, "{ctx}");
    let units: f64 = games.iter().map(|g| g["profit_units"].as_f64().unwrap()).sum();
    assert_eq!(
        json!(round4(units)),
        entry["units"],
        "{ctx}: units = sum of profit_units"
    );
    if let Some(last) = games.last() {
        assert!(
            (last["running_units"].as_f64().unwrap() - entry["units"].as_f64().unwrap()).abs() < 1e-6,
            "{ctx}"
        );
    }
    assert_roi(entry, games, ctx);
    if accounting == "recorded_v2" {
        assert_eq!(u(&entry["pushes"]), pushes, "{ctx}");
    } else {
        assert_eq!(pushes, 0, "{ctx}: legacy_v1 reads binary outcomes");
    }
    let mut previous = (String::new(), String::new());
    let mut running = 0.0;
    for g in games {
        let key = (
            g["date"].as_str().unwrap().to_owned(),
            g["time_est"].as_str().unwrap().to_owned(),
        );
        assert!(key >= previous, "{ctx}: games oldest first");
        previous = key;
        match g["outcome"].as_str().unwrap() {
            "push" => assert!(g["won"].is_null() && g["profit_units"] == 0.0, "{ctx}: {g}"),
            "win" => assert!(
                g["won"] == true && g["profit_units"].as_f64().unwrap() > 0.0,
                "{ctx}: {g}"
            ),
            _ => assert!(
                g["won"] == false && g["profit_units"] == -1.0,
                "{ctx}: a loss costs the stake: {g}"
            ),
        }
        assert_price_and_profit(g, model_type, accounting, ctx);
        running += g["profit_units"].as_f64().unwrap();
        assert!(
            (g["running_units"].as_f64().unwrap() - running).abs() < 1e-6,
            "{ctx}: running_units accumulate: {g}"
        );
        for field in [
            "away_team",
            "home_team",
            "away_score",
            "home_score",
            "side",
            "price",
            "open_line",
            "close_line",
        ] {
            assert!(g.get(field).is_some(), "{ctx}: {field} in {g}");
        }
    }
}

/// For every sport, model type, stored season and both accountings, the
/// leaderboard follows the shape and ranking rules, and each of the sixteen
/// replays totals exactly to its entry.
#[tokio::test]
async fn every_replay_totals_to_its_leaderboard_entry_for_every_season_and_accounting() {
    let mut s = Session::start().await;
    let mut ranked = 0;
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            for season in store_seasons(&s.app.store_dir, sport, model_type) {
                for accounting in ["legacy_v1", "recorded_v2"] {
                    let base = format!("/api/v1/strategies/{sport}/{model_type}");
                    let query = format!("season={season}&accounting={accounting}");
                    let board = s.ok(&format!("{base}?{query}")).await;
                    assert_eq!(board["season"], season.as_str());
                    assert_leaderboard(&board, sport, model_type, accounting);
                    for entry in board["strategies"].as_array().unwrap() {
                        ranked += usize::from(entry["ranked"] == true);
                        let id = entry["id"].as_str().unwrap();
                        let replay = s.ok(&format!("{base}/replay/{id}?{query}")).await;
                        let ctx = format!("{sport}/{model_type} {season} {accounting} {id}");
                        assert_eq!(
                            (replay["season"].as_str(), replay["accounting"].as_str()),
                            (Some(season.as_str()), Some(accounting))
                        );
                        assert_eq!(replay["last_updated"], board["last_updated"], "{ctx}");
                        assert!(
                            replay.get("excluded_rows").is_none(),
                            "{ctx}: excluded rows only when asked"
                        );
                        assert_replay_matches(&replay, entry, model_type, accounting, &ctx);
                    }
                }
            }
        }
    }
    assert!(
        ranked > 0,
        "the fixture has ranked strategies, so the ROI ordering is exercised"
    );
}

#[tokio::test]
async fn accounting_absent_is_the_deprecated_legacy_v1_and_recorded_v2_carries_no_deprecation_header() {
    let mut s = Session::start().await;
    for (query, expected, deprecated) in [
        ("", "legacy_v1", true),
        ("?accounting=legacy_v1", "legacy_v1", true),
        ("?accounting=recorded_v2", "recorded_v2", false),
    ] {
        for path in [
            "/api/v1/strategies/nfl/won_on_spread",
            "/api/v1/strategies/nfl/won_on_spread/replay/edge-pb",
        ] {
            let res = s.response(&format!("{path}{query}")).await;
            assert_eq!(res.status().as_u16(), 200);
            assert_eq!(res.headers().contains_key("deprecation"), deprecated, "{path}{query}");
            if deprecated {
                // RFC 9745: a Structured Fields date, `@` + Unix seconds (2026-11-21T00:00:00Z).
                assert_eq!(res.headers()["deprecation"], "@1795219200", "{path}{query}");
            }
            let body: Value = res.json().await.unwrap();
            assert_eq!(body["accounting"], expected, "{path}{query}");
        }
    }
    let legacy = s.ok("/api/v1/strategies/nfl/won_on_spread").await;
    let explicit = s.ok("/api/v1/strategies/nfl/won_on_spread?accounting=legacy_v1").await;
    assert_eq!(legacy, explicit, "absent accounting is legacy_v1");
    let v2 = s
        .ok("/api/v1/strategies/nfl/won_on_spread?accounting=recorded_v2")
        .await;
    assert!(v2["price_basis"].as_str().unwrap() != legacy["price_basis"].as_str().unwrap());
    for bad in ["recorded_v3", "LEGACY", "", "v2"] {
        for path in [
            "/api/v1/strategies/nfl/won_on_spread",
            "/api/v1/strategies/nfl/won_on_spread/replay/edge-pb",
        ] {
            let (status, body) = s.json(&format!("{path}?accounting={bad}")).await;
            let detail = assert_error_shape(status, &body, 400);
            assert!(
                detail.contains("accounting") && detail.contains("recorded_v2"),
                "{detail}"
            );
        }
    }
}

#[tokio::test]
async fn an_unknown_strategy_id_is_a_400_listing_the_sixteen_valid_ids() {
    let mut s = Session::start().await;
    for id in ["line-xx", "LINE-PB", "hybrid-pb-pf"] {
        let (status, body) = s
            .json(&format!("/api/v1/strategies/nba/won_on_points/replay/{id}"))
            .await;
        let detail = assert_error_shape(status, &body, 400);
        assert!(detail.contains("strategy_id") && detail.contains(id), "{detail}");
        for (valid, _, _) in CATALOG {
            assert!(detail.contains(valid), "{valid} listed in {detail}");
        }
    }
}

/// `include_excluded=true` adds every candidate game not bet, each with a
/// reason; under recorded_v2 the reasons add up to the entry's exclusions,
/// and games plus excluded rows are the games considered.
#[tokio::test]
async fn include_excluded_adds_the_excluded_rows_with_their_reasons() {
    let mut s = Session::start().await;
    let mut reasons_seen = std::collections::BTreeSet::new();
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            for accounting in ["legacy_v1", "recorded_v2"] {
                for (id, _, _) in CATALOG {
                    let path = format!("/api/v1/strategies/{sport}/{model_type}/replay/{id}?accounting={accounting}");
                    let full = s.ok(&format!("{path}&include_excluded=true")).await;
                    let ctx = path.clone();
                    let excluded = full["excluded_rows"]
                        .as_array()
                        .unwrap_or_else(|| panic!("{ctx}: excluded_rows"));
                    let games = full["games"].as_array().unwrap();
                    assert_eq!(
                        u(&full["games_considered"]),
                        (games.len() + excluded.len()) as u64,
                        "{ctx}"
                    );
                    let mut counts: BTreeMap<&str, u64> = EXCLUSIONS.iter().map(|r| (*r, 0)).collect();
                    for row in excluded {
                        let reason = row["reason"].as_str().unwrap();
                        *counts
                            .get_mut(reason)
                            .unwrap_or_else(|| panic!("{ctx}: unknown reason {reason}")) += 1;
                        reasons_seen.insert(reason.to_owned());
                        for field in ["date", "time_est", "away_team", "home_team", "side"] {
                            assert!(row.get(field).is_some(), "{ctx}: {field} in {row}");
                        }
                    }
                    if accounting == "recorded_v2" {
                        assert_eq!(full["games_considered"], full["strategy"]["candidates"], "{ctx}");
                        let entry = &full["strategy"]["exclusions"];
                        for reason in EXCLUSIONS {
                            assert_eq!(u(&entry[reason]), counts[reason], "{ctx}: {reason}");
                        }
                    }
                    let (status, trimmed) = s.json(&format!("{path}&include_excluded=false")).await;
                    assert_eq!(status, 200);
                    assert!(trimmed.get("excluded_rows").is_none(), "{ctx}");
                    let mut expected = full.clone();
                    expected.as_object_mut().unwrap().remove("excluded_rows");
                    assert_eq!(trimmed, expected, "{ctx}: the same replay without excluded_rows");
                }
            }
        }
    }
    assert_eq!(
        reasons_seen.len(),
        4,
        "the fixture exercises every exclusion reason: {reasons_seen:?}"
    );
    let (status, body) = s
        .json("/api/v1/strategies/nba/won_on_points/replay/edge-pb?include_excluded=maybe")
        .await;
    assert!(assert_error_shape(status, &body, 400).contains("include_excluded"));
}

#[tokio::test]
async fn season_defaults_to_the_latest_season_in_the_store_and_is_validated() {
    let mut s = Session::start().await;
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let latest = store_seasons(&s.app.store_dir, sport, model_type).pop().unwrap();
            let base = format!("/api/v1/strategies/{sport}/{model_type}");
            for accounting in ["legacy_v1", "recorded_v2"] {
                let default = s.ok(&format!("{base}?accounting={accounting}")).await;
                assert_eq!(default["season"], latest.as_str(), "{base}");
                let named = s.ok(&format!("{base}?accounting={accounting}&season={latest}")).await;
                assert_eq!(default, named, "{base}: the default is the latest season");
                let replay = s.ok(&format!("{base}/replay/line-pb?accounting={accounting}")).await;
                assert_eq!(
                    replay["season"],
                    latest.as_str(),
                    "{base}: the replay defaults the same way"
                );
            }
        }
    }
    for (path, status) in [
        ("/api/v1/strategies/nba/won_on_points?season=2025", 400),
        ("/api/v1/strategies/nba/won_on_points?season=2025-27", 400),
        ("/api/v1/strategies/mlb/won_on_points?season=2025-26", 400),
        ("/api/v1/strategies/nba/won_on_points/replay/line-pb?season=26-27", 400),
        ("/api/v1/strategies/nba/won_on_points?season=2019-20", 404),
        ("/api/v1/strategies/mlb/over_under/replay/line-pb?season=2031", 404),
        ("/api/v1/strategies/xfl/won_on_points", 400),
        ("/api/v1/strategies/nba/moneyline", 400),
    ] {
        let (got, body) = s.json(path).await;
        let detail = assert_error_shape(got, &body, status);
        if status == 400 && path.contains("season=") {
            assert!(detail.contains("season"), "{path}: {detail}");
        }
    }
}

/// A strategy id sent percent-encoded names the same strategy: the replay
/// answers exactly as for the plain id.
#[tokio::test]
async fn a_percent_encoded_strategy_id_is_the_same_strategy() {
    let mut s = Session::start().await;
    let plain = s.ok("/api/v1/strategies/nba/won_on_points/replay/line-pb").await;
    let encoded = s.ok("/api/v1/strategies/nba/won_on_points/replay/line%2Dpb").await;
    assert_eq!(plain, encoded);
    assert_eq!(encoded["strategy"]["id"], "line-pb");
}
