//! Every book for one game: the test writes three releases of
//! `books/nba.csv` by hand at instants it chooses, lets the watcher keep
//! them, and checks the board (best prices, the consensus and the
//! overround, worked out here from the prices it wrote), `as_of`, a game's
//! odds history and each book's close (a post-start price never is one; a
//! book with no pre-start price has none and says why), and the
//! single-book fallback where no named books are published.

use serde_json::Value;

use crate::helpers::{TestApp, at, fixture_now, publish, sha256, spawn_app_with, spawn_with_settings};

const BOOKS: &str = "books/nba.csv";
const HEADER: &str = "match_id,date,time_est,away_team,home_team,book,book_title,away_point_spread,away_point_spread_line,home_point_spread,home_point_spread_line,away_money_line,home_money_line,over_under,over_line,under_line,last_update";

/// Starts 19:30 ET on the 15th (00:30 UTC on the 16th): after the fixture's
/// "now" (17:00 UTC on the 15th).
const LATE: &str = "nba-20261115-brooklyn_nets-boston_celtics";
const LATE_KEY: &str = "m1,2026-11-15,19:30:00,brooklyn_nets,boston_celtics";
/// Starts 11:00 ET on the 15th (16:00 UTC): before "now".
const EARLY: &str = "nba-20261115-miami_heat-orlando_magic";
const EARLY_KEY: &str = "m2,2026-11-15,11:00:00,miami_heat,orlando_magic";

const T1: &str = "2026-11-15T10:00:00Z";
const T2: &str = "2026-11-15T15:00:00Z";
/// After the early game's start.
const T3: &str = "2026-11-15T16:30:00Z";

fn release(rows: &[String]) -> Vec<u8> {
    let mut text = format!("{HEADER}\n");
    for row in rows {
        text.push_str(row);
        text.push('\n');
    }
    text.into_bytes()
}

/// One row: the game key, the book, its spread, money line and total.
fn row(
    key: &str,
    book: &str,
    spread: (f64, f64, f64),
    ml: (i32, i32),
    total: (f64, i32, i32),
    updated: &str,
) -> String {
    let title = format!("{}{}", book[..1].to_uppercase(), &book[1..]);
    let (home_spread, home_price, away_price) = spread;
    format!(
        "{key},{book},{title},{},{away_price},{home_spread},{home_price},{},{},{},{},{},{updated}",
        -home_spread, ml.0, ml.1, total.0, total.1, total.2
    )
}

/// The three releases: the late game as three books quote it (unchanged
/// after the first), the early game's books moving, and after its start a
/// moved alpha and a book (delta) that first quotes it then.
fn releases() -> [Vec<u8>; 3] {
    let late = [
        row(
            LATE_KEY,
            "alpha",
            (-6.5, -110.0, -110.0),
            (220, -260),
            (221.5, -110, -110),
            "2026-11-15T09:00:00Z",
        ),
        row(
            LATE_KEY,
            "beta",
            (-6.5, -115.0, -105.0),
            (240, -280),
            (221.5, -108, -112),
            "2026-11-15T09:30:00Z",
        ),
        row(
            LATE_KEY,
            "gamma",
            (-7.5, -110.0, -110.0),
            (230, -270),
            (222.5, -110, -110),
            "2026-11-15T08:00:00Z",
        ),
    ];
    let early1 = [
        row(
            EARLY_KEY,
            "alpha",
            (-2.5, -110.0, -110.0),
            (130, -150),
            (210.5, -110, -110),
            "2026-11-15T09:00:00Z",
        ),
        row(
            EARLY_KEY,
            "beta",
            (-2.5, -112.0, -108.0),
            (128, -148),
            (210.5, -110, -110),
            "2026-11-15T09:10:00Z",
        ),
    ];
    let early2 = [
        row(
            EARLY_KEY,
            "alpha",
            (-3.5, -110.0, -110.0),
            (140, -160),
            (211.5, -110, -110),
            "2026-11-15T14:30:00Z",
        ),
        row(
            EARLY_KEY,
            "beta",
            (-3.5, -110.0, -110.0),
            (135, -155),
            (211.5, -110, -110),
            "2026-11-15T14:40:00Z",
        ),
    ];
    let early3 = [
        row(
            EARLY_KEY,
            "alpha",
            (-5.5, -110.0, -110.0),
            (170, -200),
            (214.5, -110, -110),
            "2026-11-15T16:20:00Z",
        ),
        row(
            EARLY_KEY,
            "delta",
            (-5.5, -110.0, -110.0),
            (150, -180),
            (214.5, -110, -110),
            "2026-11-15T16:25:00Z",
        ),
    ];
    let with = |early: &[String]| {
        let mut rows: Vec<String> = early.to_vec();
        rows.extend(late.iter().cloned());
        release(&rows)
    };
    [with(&early1), with(&early2), with(&early3)]
}

async fn written() -> (TestApp, [Vec<u8>; 3]) {
    let versions = releases();
    let first = versions[0].clone();
    let app = spawn_app_with(fixture_now(), move |store| publish(store, BOOKS, &first, T1)).await;
    app.keep_releases().await;
    publish(&app.store_dir, BOOKS, &versions[1], T2);
    app.keep_releases().await;
    publish(&app.store_dir, BOOKS, &versions[2], T3);
    app.keep_releases().await;
    (app, versions)
}

/// The implied probability of an American price, by hand.
fn implied(price: f64) -> f64 {
    if price < 0.0 {
        -price / (-price + 100.0)
    } else {
        100.0 / (price + 100.0)
    }
}

fn game<'a>(body: &'a Value, id: &str) -> &'a Value {
    body["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game_id"] == id)
        .unwrap_or_else(|| panic!("{id} in {body}"))
}

fn close_to(actual: &Value, expected: f64, what: &str) {
    let actual = actual.as_f64().unwrap_or_else(|| panic!("{what}: {actual}"));
    assert!((actual - expected).abs() < 2e-6, "{what}: {actual} vs {expected}");
}

#[actix_web::test]
async fn the_board_names_each_book_and_its_best_price_and_consensus_are_the_ones_worked_by_hand() {
    let (app, _) = written().await;
    let (status, body) = app.get_authed_json("/api/v1/odds/nba/books").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["source"], "books");
    assert_eq!(body["consensus_method"], "multiplicative");
    assert!(body.get("release").is_none(), "a current answer names no release");
    let late = game(&body, LATE);
    assert_eq!(late["id"], LATE);
    assert_eq!(late["commence_time"], "2026-11-16T00:30:00Z");
    assert_eq!(late["sport_key"], "nba");
    // The Odds API's shape: bookmakers[] of markets[] of outcomes[].
    let books: Vec<&str> = late["bookmakers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["key"].as_str().unwrap())
        .collect();
    assert_eq!(books, ["alpha", "beta", "gamma"]);
    let alpha = &late["bookmakers"][0];
    assert_eq!(alpha["title"], "Alpha");
    assert_eq!(alpha["last_update"], "2026-11-15T09:00:00Z");
    let h2h = &alpha["markets"][0];
    assert_eq!(h2h["key"], "h2h");
    assert_eq!(h2h["outcomes"][0]["name"], "boston_celtics");
    assert_eq!(h2h["outcomes"][0]["price"], -260.0);
    assert!(h2h["outcomes"][0].get("point").is_none());
    assert_eq!(h2h["outcomes"][1]["name"], "brooklyn_nets");
    assert_eq!(h2h["outcomes"][1]["price"], 220.0);
    let spreads = &alpha["markets"][1];
    assert_eq!(spreads["key"], "spreads");
    assert_eq!(spreads["outcomes"][0]["point"], -6.5);
    assert_eq!(spreads["outcomes"][1]["point"], 6.5);
    let totals = &alpha["markets"][2];
    assert_eq!(totals["key"], "totals");
    assert_eq!(totals["outcomes"][0]["name"], "Over");
    assert_eq!(totals["outcomes"][1]["name"], "Under");
    assert_eq!(totals["outcomes"][1]["point"], 221.5);

    // Best: the highest payout per side; spreads and totals at the side's
    // most common point (gamma's -7.5 and 222.5 are another bet).
    let best = &late["best"];
    assert_eq!(
        (&best["h2h"]["home"]["book"], &best["h2h"]["home"]["price"]),
        (&"alpha".into(), &(-260.0).into())
    );
    assert_eq!(
        (&best["h2h"]["away"]["book"], &best["h2h"]["away"]["price"]),
        (&"beta".into(), &240.0.into())
    );
    assert_eq!(best["spreads"]["home"]["book"], "alpha");
    assert_eq!(best["spreads"]["home"]["point"], -6.5);
    assert_eq!(best["spreads"]["away"]["book"], "beta");
    assert_eq!(best["spreads"]["away"]["price"], -105.0);
    assert_eq!(best["totals"]["over"]["book"], "beta");
    assert_eq!(best["totals"]["over"]["price"], -108.0);
    assert_eq!(best["totals"]["under"]["book"], "alpha");
    assert_eq!(best["totals"]["under"]["point"], 221.5);

    // Consensus: each book de-vigged multiplicatively, then the median.
    let devig = |home: f64, away: f64| implied(home) / (implied(home) + implied(away));
    let over = |home: f64, away: f64| implied(home) + implied(away) - 1.0;
    let mut homes = [devig(-260.0, 220.0), devig(-280.0, 240.0), devig(-270.0, 230.0)];
    homes.sort_by(f64::total_cmp);
    let mut overs = [over(-260.0, 220.0), over(-280.0, 240.0), over(-270.0, 230.0)];
    overs.sort_by(f64::total_cmp);
    let h2h = &late["consensus"]["h2h"];
    close_to(&h2h["a"], homes[1], "h2h home");
    close_to(&h2h["b"], 1.0 - homes[1], "h2h away");
    close_to(&h2h["overround"], overs[1], "h2h overround");
    assert_eq!(h2h["n_books"], 3);
    assert_eq!(h2h["method"], "multiplicative");
    // Spreads at -6.5: alpha and beta count, gamma is off the line; the
    // median of two is their mean.
    let spreads = &late["consensus"]["spreads"];
    assert_eq!(spreads["point"], -6.5);
    assert_eq!(spreads["n_books"], 2);
    assert_eq!(spreads["n_off_line"], 1);
    close_to(
        &spreads["a"],
        f64::midpoint(devig(-110.0, -110.0), devig(-115.0, -105.0)),
        "spread home",
    );
    let totals = &late["consensus"]["totals"];
    assert_eq!(totals["point"], 221.5);
    close_to(
        &totals["overround"],
        f64::midpoint(over(-110.0, -110.0), over(-108.0, -112.0)),
        "total overround",
    );

    // One game only.
    let (status, one) = app
        .get_authed_json(&format!("/api/v1/odds/nba/books?game_id={LATE}"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(one["games"].as_array().unwrap().len(), 1);
    assert_eq!(one["games"][0], *late);
}

#[actix_web::test]
async fn as_of_between_two_book_releases_answers_the_older() {
    let (app, versions) = written().await;
    let (status, body) = app
        .get_authed_json(&format!(
            "/api/v1/odds/nba/books?as_of=2026-11-15T14:59:59Z&game_id={EARLY}"
        ))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["release"]["digest"], sha256(&versions[0]));
    assert_eq!(at(body["release"]["published_at"].as_str().unwrap()), at(T1));
    assert_eq!(
        body["games"][0]["bookmakers"][0]["markets"][0]["outcomes"][0]["price"],
        -150.0
    );
    let (_, later) = app
        .get_authed_json(&format!(
            "/api/v1/odds/nba/books?as_of=2026-11-15T15:00:00Z&game_id={EARLY}"
        ))
        .await;
    assert_eq!(later["release"]["digest"], sha256(&versions[1]));
    assert_eq!(
        later["games"][0]["bookmakers"][0]["markets"][0]["outcomes"][0]["price"],
        -160.0
    );
}

#[actix_web::test]
async fn the_odds_history_lists_every_price_oldest_first_and_a_close_is_never_a_post_start_price() {
    let (app, versions) = written().await;
    let (status, body) = app
        .get_authed_json(&format!("/api/v1/games/{EARLY}/odds-history"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["source"], "books");
    assert_eq!(body["commence_time"], "2026-11-15T16:00:00Z");
    assert_eq!(body["started"], true);
    let prices: Vec<(String, String, f64)> = body["prices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["published_at"].as_str().unwrap().to_owned(),
                p["book"].as_str().unwrap().to_owned(),
                p["home_money_line"].as_f64().unwrap(),
            )
        })
        .collect();
    let expected = [
        (T1, "alpha", -150.0),
        (T1, "beta", -148.0),
        (T2, "alpha", -160.0),
        (T2, "beta", -155.0),
        (T3, "alpha", -200.0),
        (T3, "delta", -180.0),
    ];
    assert_eq!(prices.len(), expected.len(), "{prices:?}");
    for ((published, book, price), (t, b, p)) in prices.iter().zip(expected) {
        assert_eq!((at(published), book.as_str(), *price), (at(t), b, p));
    }
    assert_eq!(body["prices"][4]["after_start"], true);
    assert_eq!(body["prices"][3]["after_start"], false);
    assert_eq!(body["prices"][0]["digest"], sha256(&versions[0]));

    let book = |key: &str| {
        body["books"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["key"] == key)
            .unwrap()
            .clone()
    };
    // alpha moved to -200 after the start: its close is T2's -160.
    let alpha = book("alpha");
    assert_eq!(alpha["close"]["home_money_line"], -160.0);
    assert_eq!(at(alpha["close"]["published_at"].as_str().unwrap()), at(T2));
    assert_eq!(alpha["opening"]["home_money_line"], -150.0);
    assert_eq!(alpha["provisional"], false);
    assert_eq!(alpha["n_prices"], 3);
    assert!(alpha["close_missing"].is_null());
    // delta quoted only after the start: no close, and why.
    let delta = book("delta");
    assert!(delta["close"].is_null());
    assert!(delta["opening"].is_null());
    assert_eq!(delta["close_missing"], "never_quoted_before_start");
    // The closing consensus is over alpha's and beta's T2 closes.
    let devig = |home: f64, away: f64| implied(home) / (implied(home) + implied(away));
    close_to(
        &body["closing_consensus"]["h2h"]["a"],
        f64::midpoint(devig(-160.0, 140.0), devig(-155.0, 135.0)),
        "closing consensus",
    );
    assert_eq!(body["closing_consensus"]["h2h"]["n_books"], 2);

    // A game that has not started: its closes are provisional.
    let (_, late) = app.get_authed_json(&format!("/api/v1/games/{LATE}/odds-history")).await;
    assert_eq!(late["started"], false);
    assert!(
        late["books"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["provisional"] == true)
    );
    assert_eq!(
        late["prices"].as_array().unwrap().len(),
        9,
        "three books in three releases"
    );

    // The CSV holds the JSON's rows.
    let res = app
        .get_authed(&format!("/api/v1/games/{EARLY}/odds-history?format=csv"))
        .await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"].to_str().unwrap().starts_with("text/csv"),
        "{:?}",
        res.headers()
    );
    let csv = res.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + expected.len(), "{csv}");
    assert!(lines[0].starts_with("published_at,digest,book,book_title,last_update,after_start,"));
    assert!(
        lines[5].contains(",alpha,Alpha,") && lines[5].contains(",true,"),
        "{}",
        lines[5]
    );
    let res = app
        .get_authed(&format!("/api/v1/games/{EARLY}/odds-history?format=parquet"))
        .await;
    assert_eq!(res.status(), 200);
    let bytes = res.bytes().await.unwrap();
    assert_eq!(&bytes[..4], b"PAR1");
}

#[actix_web::test]
async fn bad_filters_name_their_parameter_and_unknown_games_are_404() {
    let (app, _) = written().await;
    for (path, parameter) in [
        ("/api/v1/odds/nba/books?game_id=not-a-game", "game_id"),
        ("/api/v1/odds/nba/books?game_id=nhl-20261115-a-b", "game_id"),
        ("/api/v1/odds/nba/books?as_of=yesterday", "as_of"),
        ("/api/v1/odds/xfl/books", "sport"),
        ("/api/v1/games/nope/odds-history", "game_id"),
        (&*format!("/api/v1/games/{EARLY}/odds-history?format=xml"), "format"),
    ] {
        let (status, body) = app.get_authed_json(path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(body["parameter"], parameter, "{path}: {body}");
    }
    for path in [
        "/api/v1/odds/nba/books?game_id=nba-20261115-a_team-b_team",
        "/api/v1/games/nba-20261115-a_team-b_team/odds-history",
    ] {
        let (status, body) = app.get_authed_json(path).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
}

#[actix_web::test]
async fn without_named_books_the_single_book_odds_are_the_book_primary() {
    let app = spawn_app_with(fixture_now(), |store| {
        std::fs::remove_file(store.join(BOOKS)).unwrap();
    })
    .await;
    let (status, books) = app.get_authed_json("/api/v1/odds/nba/books").await;
    assert_eq!(status, 200, "{books}");
    assert_eq!(books["source"], "primary");
    let (_, odds) = app.get_authed_json("/api/v1/odds/nba").await;
    let odds = odds["games"].as_array().unwrap();
    let games = books["games"].as_array().unwrap();
    assert_eq!(games.len(), odds.len());
    assert!(!games.is_empty());
    for (game, odds) in games.iter().zip(odds) {
        assert_eq!(game["game_id"], odds["game_id"]);
        let bookmakers = game["bookmakers"].as_array().unwrap();
        assert_eq!(bookmakers.len(), 1);
        assert_eq!(bookmakers[0]["key"], "primary");
        if let Some(h2h) = bookmakers[0]["markets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["key"] == "h2h")
        {
            let home = h2h["outcomes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["name"] == game["home_team"]);
            if let Some(home) = home {
                assert_eq!(home["price"], odds["home_money_line"], "{game}");
            }
        }
        // One book: the consensus is its own no-vig price.
        if let Some(h2h) = game["consensus"]["h2h"].as_object() {
            assert_eq!(h2h["n_books"], 1);
        }
    }
}

#[actix_web::test]
async fn the_single_book_is_named_as_configured() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    crate::helpers::copy_dir(&crate::helpers::fixtures_dir(), &store_dir);
    std::fs::remove_file(store_dir.join(BOOKS)).unwrap();
    let mut settings = linecast_api::settings::Settings::for_tests(
        &format!("file://{}", store_dir.display()),
        dir.path(),
        fixture_now(),
    );
    settings.primary_book = linecast_core::services::books::PrimaryBook {
        key: linecast_books::book::BookKey::parse("house_book").unwrap(),
        title: "House Book".to_owned(),
    };
    let app = spawn_with_settings(settings, dir, store_dir).await;
    let (status, body) = app.get_authed_json("/api/v1/odds/nba/books").await;
    assert_eq!(status, 200, "{body}");
    let bookmaker = &body["games"][0]["bookmakers"][0];
    assert_eq!(
        (&bookmaker["key"], &bookmaker["title"]),
        (&"house_book".into(), &"House Book".into())
    );
}

/// `/markets` shows the books' moneyline consensus beside the book and the
/// prediction market: the median of each book's no-vig home probability,
/// worked here from the books' own prices.
#[actix_web::test]
async fn markets_carry_the_books_consensus_worked_from_each_books_prices() {
    let app = crate::helpers::spawn_app().await;
    let (status, markets) = app.get_authed_json("/api/v1/markets/nba").await;
    assert_eq!(status, 200, "{markets}");
    let (_, books) = app.get_authed_json("/api/v1/odds/nba/books").await;
    let mut compared = 0;
    for game in markets["games"].as_array().unwrap() {
        let Some(served) = game["consensus_home"].as_f64() else {
            continue;
        };
        let board = books["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["game_id"] == game["game_id"])
            .unwrap_or_else(|| panic!("{} in the books", game["game_id"]));
        let mut homes: Vec<f64> = Vec::new();
        for bookmaker in board["bookmakers"].as_array().unwrap() {
            let Some(h2h) = bookmaker["markets"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["key"] == "h2h")
            else {
                continue;
            };
            let price = |team: &Value| {
                h2h["outcomes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|o| o["name"] == *team)
                    .map(|o| o["price"].as_f64().unwrap())
            };
            if let (Some(home), Some(away)) = (price(&board["home_team"]), price(&board["away_team"])) {
                homes.push(implied(home) / (implied(home) + implied(away)));
            }
        }
        homes.sort_by(f64::total_cmp);
        let n = homes.len();
        let median = if n % 2 == 1 {
            homes[n / 2]
        } else {
            f64::midpoint(homes[n / 2 - 1], homes[n / 2])
        };
        assert_eq!(game["consensus_books"], n, "{game}");
        assert!(
            (served - median).abs() < 6e-5,
            "{}: {served} vs {median}",
            game["game_id"]
        );
        assert!((game["consensus_away"].as_f64().unwrap() - (1.0 - median)).abs() < 6e-5);
        compared += 1;
    }
    assert!(compared > 0, "no game with a consensus: {markets}");
}
