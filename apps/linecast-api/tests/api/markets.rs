//! `GET /api/v1/markets/{sport}` over HTTP: BLEND vs the no-vig moneyline vs
//! the prediction market, which games carry a market price, and a failing
//! Kalshi source.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use chrono_tz::America::New_York;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::helpers::{
    FIXTURE_TODAY, KeyRing, TestApp, csv_rows, fixture_now, fixtures_dir, instant, spawn_app, spawn_app_configured,
    spawn_app_with,
};

type Row = HashMap<String, String>;

const TOLERANCE: f64 = 1.5e-4;

fn implied(american: f64) -> f64 {
    if american > 0.0 {
        100.0 / (american + 100.0)
    } else {
        -american / (-american + 100.0)
    }
}

/// The home side's no-vig probability from both moneylines.
fn no_vig_home(home: f64, away: f64) -> f64 {
    implied(home) / (implied(home) + implied(away))
}

fn number(cell: &str) -> Option<f64> {
    (!cell.is_empty()).then(|| cell.parse().unwrap())
}

fn same_game(row: &Row, game: &Value) -> bool {
    row["date"] == game["date"].as_str().unwrap()
        && row["time_est"][..5] == *game["time"].as_str().unwrap()
        && row["away_team"] == game["away_team"].as_str().unwrap()
        && row["home_team"] == game["home_team"].as_str().unwrap()
}

fn start(row: &Row) -> DateTime<Utc> {
    let local =
        NaiveDateTime::parse_from_str(&format!("{} {}", row["date"], row["time_est"]), "%Y-%m-%d %H:%M:%S").unwrap();
    New_York
        .from_local_datetime(&local)
        .earliest()
        .unwrap()
        .with_timezone(&Utc)
}

fn close(a: &Value, b: Option<f64>, what: &str) {
    match (a.as_f64(), b) {
        (Some(x), Some(y)) => assert!((x - y).abs() <= TOLERANCE, "{what}: served {x}, expected {y}"),
        (None, None) => assert_eq!(*a, Value::Null, "{what}"),
        (x, y) => panic!("{what}: served {x:?}, expected {y:?}"),
    }
}

/// Checks every game of `sport`'s payload against the fixture CSVs and
/// returns how many carried a prediction-market price. `market_prices`:
/// whether the sport's snapshot prices should be served at all.
fn check_payload(sport: &str, body: &Value, now: DateTime<Utc>, market_prices: bool) -> usize {
    let dir = fixtures_dir();
    let predictions = csv_rows(&dir.join(format!("predictions/{sport}/won_on_points.csv")));
    let odds = csv_rows(&dir.join(format!("odds/{sport}.csv")));
    let snapshot = dir.join(format!("markets/{sport}.csv"));
    let markets = if snapshot.exists() {
        csv_rows(&snapshot)
    } else {
        Vec::new()
    };
    assert_eq!(body["sport"], sport);
    let games = body["games"].as_array().unwrap();
    let expected_count = predictions
        .iter()
        .filter(|r| r["date"].as_str() >= FIXTURE_TODAY)
        .count();
    assert_eq!(games.len(), expected_count, "{sport}: today's moneyline slate");
    let mut priced = 0;
    for game in games {
        let keys: BTreeSet<&str> = game.as_object().unwrap().keys().map(String::as_str).collect();
        let expected_keys = BTreeSet::from([
            "game_id",
            "date",
            "time",
            "away_team",
            "home_team",
            "model_home",
            "model_away",
            "book_home",
            "book_away",
            "kalshi_home",
            "kalshi_away",
            "consensus_home",
            "consensus_away",
            "consensus_books",
            "edge_home",
        ]);
        assert_eq!(keys, expected_keys, "{game}");
        let time = game["time"].as_str().unwrap();
        assert!(
            time.len() == 5 && chrono::NaiveTime::parse_from_str(time, "%H:%M").is_ok(),
            "time is HH:MM: {time}"
        );
        let row = predictions
            .iter()
            .find(|r| same_game(r, game))
            .unwrap_or_else(|| panic!("{game}"));
        let blend: f64 = row["BLEND"].parse().unwrap();
        close(&game["model_home"], Some(blend), &format!("{sport} model_home {game}"));
        close(
            &game["model_away"],
            Some(1.0 - blend),
            &format!("{sport} model_away {game}"),
        );
        let lines = odds.iter().find(|r| same_game(r, game)).unwrap_or(row);
        let book = number(&lines["home_money_line"])
            .zip(number(&lines["away_money_line"]))
            .map(|(h, a)| no_vig_home(h, a));
        close(&game["book_home"], book, &format!("{sport} book_home {game}"));
        close(
            &game["book_away"],
            book.map(|p| 1.0 - p),
            &format!("{sport} book_away {game}"),
        );
        let market = markets.iter().find(|r| same_game(r, game));
        let live = market_prices && now < start(row);
        let (kalshi_home, kalshi_away) = match market {
            Some(m) if live => (number(&m["home_price"]), number(&m["away_price"])),
            _ => (None, None),
        };
        close(
            &game["kalshi_home"],
            kalshi_home,
            &format!("{sport} kalshi_home {game}"),
        );
        close(
            &game["kalshi_away"],
            kalshi_away,
            &format!("{sport} kalshi_away {game}"),
        );
        priced += usize::from(kalshi_home.is_some());
        let lowest = [book, kalshi_home].into_iter().flatten().reduce(f64::min);
        close(
            &game["edge_home"],
            lowest.map(|l| blend - l),
            &format!("{sport} edge_home {game}"),
        );
    }
    priced
}

#[tokio::test]
async fn the_comparison_is_blend_vs_the_no_vig_moneyline_vs_the_market_hand_checked() {
    let app = spawn_app().await;
    let (status, body) = app.get_authed_json("/api/v1/markets/nba").await;
    assert_eq!(status, 200, "{body}");
    // By hand: dallas_mavericks @ charlotte_hornets at 18:00 ET, BLEND 0.7546,
    // home -388, away +300: implied 388/488 = 0.795082 and 100/400 = 0.25,
    // no-vig home 0.795082 / 1.045082 = 0.7608. Kalshi home 0.69 is lower,
    // so edge_home = 0.7546 - 0.69 = 0.0646.
    let game = &body["games"][0];
    assert_eq!(
        *game,
        serde_json::json!({
            "game_id": "nba-20261115-dallas_mavericks-charlotte_hornets",
            "date": "2026-11-15", "time": "18:00", "away_team": "dallas_mavericks", "home_team": "charlotte_hornets",
            "model_home": 0.7546, "model_away": 0.2454, "book_home": 0.7608, "book_away": 0.2392,
            "kalshi_home": 0.69, "kalshi_away": 0.33,
            // The seven named books' median no-vig home probability
            // (worked from each book's prices in books.rs); the edge
            // stays the book's and the market's.
            "consensus_home": 0.7613, "consensus_away": 0.2387, "consensus_books": 7,
            "edge_home": 0.0646
        })
    );
    // atlanta_hawks @ denver_nuggets: home +131, away -158: no-vig home
    // 0.432900 / 1.045304 = 0.4141, below Kalshi's 0.47, so the edge is
    // against the book: 0.4484 - 0.4141 = 0.0343.
    assert_eq!(body["games"][1]["book_home"], 0.4141);
    assert_eq!(body["games"][1]["edge_home"], 0.0343);
    // The newest source time: the newest odds update (16:00:00Z) beats the
    // market snapshot's newest capture (15:10Z).
    assert_eq!(
        instant(body["as_of"].as_str().unwrap()),
        instant("2026-11-15T16:00:00Z")
    );
    let top: BTreeSet<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(top, BTreeSet::from(["sport", "as_of", "games"]));
}

#[tokio::test]
async fn every_covered_sport_follows_the_formulas_and_prices_games_not_yet_started() {
    let app = spawn_app().await;
    let mut ring = KeyRing::new(&app);
    let mut priced = 0;
    for sport in ["mlb", "nba", "nfl", "nhl"] {
        let (status, body) = ring.get_json(&format!("/api/v1/markets/{sport}")).await;
        assert_eq!(status, 200, "{sport}: {body}");
        priced += check_payload(sport, &body, fixture_now(), true);
    }
    assert!(priced > 0);
}

#[tokio::test]
async fn started_games_lose_their_market_price_while_later_games_keep_it() {
    // 13:30 ET: nhl's and nfl's 13:00 games are under way.
    let now = instant("2026-11-15T18:30:00Z");
    let app = spawn_app_with(now, |_| {}).await;
    for sport in ["nhl", "nfl"] {
        let (status, body) = app.get_authed_json(&format!("/api/v1/markets/{sport}")).await;
        assert_eq!(status, 200);
        let games = body["games"].as_array().unwrap();
        let early = games.iter().find(|g| g["time"] == "13:00").unwrap();
        assert_eq!(early["kalshi_home"], Value::Null, "{sport}: {early}");
        assert_eq!(early["kalshi_away"], Value::Null, "{sport}: {early}");
        let later = games
            .iter()
            .filter(|g| g["time"] != "13:00" && g["kalshi_home"].is_number())
            .count();
        assert!(later > 0, "{sport}: games not started keep their price");
        check_payload(sport, &body, now, true);
    }
}

#[tokio::test]
async fn college_sports_carry_no_prediction_market_price_even_with_a_snapshot() {
    // A snapshot for ncaab/ncaaf exists in this copy: the source still must
    // not be consulted, as Kalshi covers mlb, nba, nfl and nhl only.
    let app = spawn_app_with(fixture_now(), |store| {
        for sport in ["ncaab", "ncaaf"] {
            let predictions = csv_rows(&store.join(format!("predictions/{sport}/won_on_points.csv")));
            let mut text = String::from("date,time_est,away_team,home_team,ticker,home_price,away_price,captured_at\n");
            for r in &predictions {
                let (d, t, a, h) = (&r["date"], &r["time_est"], &r["away_team"], &r["home_team"]);
                writeln!(text, "{d},{t},{a},{h},KXTEST-{d}-{a},0.51,0.51,2026-11-15T15:00:00Z").unwrap();
            }
            std::fs::write(store.join(format!("markets/{sport}.csv")), text).unwrap();
        }
    })
    .await;
    for sport in ["ncaab", "ncaaf"] {
        let (status, body) = app.get_authed_json(&format!("/api/v1/markets/{sport}")).await;
        assert_eq!(status, 200, "{sport}: {body}");
        for game in body["games"].as_array().unwrap() {
            assert_eq!(game["kalshi_home"], Value::Null, "{sport}: {game}");
            assert_eq!(game["kalshi_away"], Value::Null, "{sport}: {game}");
        }
        check_payload(sport, &body, fixture_now(), false);
    }
    let (_, body) = app.get_authed_json("/api/v1/markets/ncaab").await;
    assert!(!body["games"].as_array().unwrap().is_empty(), "ncaab has games today");
}

/// A local stand-in for Kalshi: `answer` decides what each connection gets;
/// `None` keeps the connection open and silent.
async fn stub_kalshi(answer: Option<&'static str>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}/trade-api/v2", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let seen = connections.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut socket, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = socket.read(&mut buf).await;
            match answer {
                Some(response) => {
                    let _ = socket.write_all(response.as_bytes()).await;
                }
                None => held.push(socket),
            }
        }
    });
    (address, connections)
}

async fn with_kalshi(base_url: String) -> TestApp {
    spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| {
            "kalshi".clone_into(&mut s.markets_source);
            s.kalshi_base_url = Some(base_url);
        },
    )
    .await
}

fn assert_served_without_market_prices(body: &Value) {
    let games = body["games"].as_array().unwrap();
    assert!(!games.is_empty());
    for game in games {
        assert_eq!(game["kalshi_home"], Value::Null, "{game}");
        assert_eq!(game["kalshi_away"], Value::Null, "{game}");
        assert!(
            game["book_home"].is_number() && game["model_home"].is_number(),
            "{game}"
        );
        close(
            &game["edge_home"],
            Some(game["model_home"].as_f64().unwrap() - game["book_home"].as_f64().unwrap()),
            "edge from the book alone",
        );
    }
    // Only the odds remain as a source time (newest nba update).
    assert_eq!(
        instant(body["as_of"].as_str().unwrap()),
        instant("2026-11-15T16:00:00Z")
    );
}

#[tokio::test]
async fn a_kalshi_source_that_never_answers_still_gives_200_with_null_market_prices() {
    // The adapter's own deadline (2 s by default) ends the wait.
    let (address, connections) = stub_kalshi(None).await;
    let app = with_kalshi(address).await;
    let (status, body) = app.get_authed_json("/api/v1/markets/nba").await;
    assert_eq!(status, 200, "{body}");
    assert_served_without_market_prices(&body);
    assert!(connections.load(Ordering::SeqCst) > 0, "the stub was consulted");
}

#[tokio::test]
async fn a_kalshi_source_answering_500_still_gives_200_with_null_market_prices() {
    let response = "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
    let (address, connections) = stub_kalshi(Some(response)).await;
    let app = with_kalshi(address).await;
    let (status, body) = app.get_authed_json("/api/v1/markets/nba").await;
    assert_eq!(status, 200, "{body}");
    assert_served_without_market_prices(&body);
    assert!(connections.load(Ordering::SeqCst) > 0, "the stub was consulted");
}
