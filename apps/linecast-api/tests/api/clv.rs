//! CLV at the time a customer could have bet: the test writes the NBA
//! moneyline predictions four times at instants it chooses (three releases
//! before the games' start, one after it) and a season store by hand, and
//! checks the CLV of both bases against values worked out by hand below,
//! with the pick taken at each game's opening release.
//!
//! Every game is on 2026-11-14 at 19:30 ET, so each starts at T =
//! 2026-11-15T00:30:00Z. The releases: R1 at T−10h, R2 at T−5h, R3 (the
//! close and the standing forecast) at T−1h, R4 at T+1h30 (after the start:
//! kept, but never a CLV point).
//!
//! No-vig probability of the home side, from American prices (implied
//! probability: −p → p / (p + 100), +p → 100 / (p + 100)):
//! - −120 / +100: home 120/220 = 0.545455, away 0.5 → 0.545455 / 1.045455 = 12/23 = 0.521739.
//! - −150 / +130: home 0.6, away 100/230 = 0.434783 → 0.6 / 1.034783 = 69/119 = 0.579832.
//! - +110 / −130: home 100/210 = 0.476190, away 130/230 = 0.565217 → 230/503 = 0.457256 (away 0.542744).
//! - −110 / −110: 0.5.
//! - +150 / −170: home 0.4, away 170/270 = 0.629630 → 54/139 = 0.388489 (away 0.611511).
//! - +130 / −150: home 100/230 = 0.434783, away 0.6 → 50/119 = 0.420168 (away 0.579832).

use serde_json::Value;

use crate::helpers::{TestApp, fixture_now, publish, spawn_app_with};

const PREDICTIONS: &str = "predictions/nba/won_on_points.csv";
const SEASON: &str = "seasons/nba/won_on_points/2026-27.csv";
const URL: &str = "/api/v1/models/nba/won_on_points/calibration?season=2026-27";

const R1: &str = "2026-11-14T14:30:00Z";
const R2: &str = "2026-11-14T19:30:00Z";
const R3: &str = "2026-11-14T23:30:00Z";
const R4: &str = "2026-11-15T02:00:00Z";

const HEADER: &str = "date,time_est,away_team,home_team,away_money_line,home_money_line,open_away_money_line,\
open_home_money_line,BLEND,CATB,RF,LGB,LOGR,XGB,XT,AI\n";

/// One predictions row of a 19:30 ET game on the 14th: (away, home) teams,
/// (away, home) prices and BLEND; the other models empty.
fn row(teams: (&str, &str), prices: (i32, i32), blend: f64) -> String {
    let (away, home) = teams;
    let (away_price, home_price) = prices;
    format!("2026-11-14,19:30:00,{away},{home},{away_price},{home_price},,,{blend},,,,,,,\n")
}

const A: (&str, &str) = ("brooklyn_nets", "boston_celtics");
const B: (&str, &str) = ("new_york_knicks", "miami_heat");
const C: (&str, &str) = ("chicago_bulls", "detroit_pistons");

/// The four releases.
/// - Game A: opens at R1 with BLEND 0.60 (home) at −120/+100; closes at R3
///   at −150/+130 with BLEND 0.64.
/// - Game B: opens at R1 with BLEND 0.45 (away) at +110/−130; by R3 BLEND
///   is 0.58 (home) at −110/−110: the opening pick and the final pick differ.
/// - Game C: first carried by R2 (its opening), BLEND 0.30 (away) at
///   +150/−170; closes at R3 at +130/−150 with BLEND 0.35.
/// - R4, after the start, re-prices every game and moves BLEND: ignored.
fn releases() -> [String; 4] {
    let r1 = [row(A, (100, -120), 0.60), row(B, (-130, 110), 0.45)].concat();
    let r2 = [
        row(A, (115, -135), 0.62),
        row(B, (-120, 100), 0.52),
        row(C, (-170, 150), 0.30),
    ]
    .concat();
    let r3 = [
        row(A, (130, -150), 0.64),
        row(B, (-110, -110), 0.58),
        row(C, (-150, 130), 0.35),
    ]
    .concat();
    let r4 = [
        row(A, (250, -300), 0.90),
        row(B, (150, -180), 0.85),
        row(C, (-300, 250), 0.10),
    ]
    .concat();
    [r1, r2, r3, r4].map(|rows| format!("{HEADER}{rows}"))
}

const SEASON_HEADER: &str = "date,time_est,season,season_type,away_team,home_team,away_score,home_score,\
won_on_points,home_money_line,away_money_line,open_home_money_line,open_away_money_line,home_point_spread,\
away_point_spread,home_point_spread_line,away_point_spread_line,open_home_point_spread,open_away_point_spread,\
over_under,open_over_under,over_line,under_line,BLEND,IMPLIED,CATB,RF,LGB,LOGR,XGB,XT,AI,quote_source,\
settlement_status,model_probability_source,model_training_through,model_reconstruction_method,forecast_source,\
forecast_run,forecast_published_at,home_rest_days,travel_km\n";

/// One graded season row: the game's final, its recorded close and open
/// home/away prices and the standing forecast's BLEND.
fn season_row(day_time: (&str, &str), teams: (&str, &str), score: (u32, u32), lines: [i32; 4], blend: f64) -> String {
    let (date, time) = day_time;
    let (away, home) = teams;
    let (away_score, home_score) = score;
    let won = u8::from(home_score > away_score);
    let [home_ml, away_ml, open_home, open_away] = lines;
    format!(
        "{date},{time},2026-27,regular,{away},{home},{away_score},{home_score},{won},{home_ml},{away_ml},\
{open_home},{open_away},,,,,,,,,,,{blend},,,,,,,,,closing,settled,live,,,live,nba-2026-11-14-r3,{R3},1,100\n"
    )
}

/// The season store: A, B and C closing at R3's prices and opening at
/// their opening release's, with R3's BLEND; D, a game no kept release
/// carried (on the 13th), opened and closed at −200/+170 with BLEND 0.70.
fn season() -> String {
    let day = ("2026-11-14", "19:30:00");
    [
        SEASON_HEADER.to_owned(),
        season_row(
            ("2026-11-13", "19:00:00"),
            ("atlanta_hawks", "charlotte_hornets"),
            (99, 104),
            [-200, 170, -200, 170],
            0.70,
        ),
        season_row(day, A, (101, 110), [-150, 130, -120, 100], 0.64),
        season_row(day, B, (112, 108), [-110, -110, 110, -130], 0.58),
        season_row(day, C, (95, 103), [130, -150, 150, -170], 0.35),
    ]
    .concat()
}

async fn written() -> TestApp {
    let [r1, r2, r3, r4] = releases();
    let first = r1.clone();
    let app = spawn_app_with(fixture_now(), move |store| {
        std::fs::write(store.join(SEASON), season()).unwrap();
        publish(store, PREDICTIONS, first.as_bytes(), R1);
    })
    .await;
    app.keep_releases().await;
    for (bytes, when) in [(r2, R2), (r3, R3), (r4, R4)] {
        publish(&app.store_dir, PREDICTIONS, bytes.as_bytes(), when);
        app.keep_releases().await;
    }
    app
}

fn model<'a>(body: &'a Value, name: &str) -> &'a Value {
    body["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == name)
        .unwrap_or_else(|| panic!("{name} not in {body}"))
}

#[tokio::test]
async fn clv_takes_the_pick_at_the_opening_and_measures_both_bases_each_with_its_n() {
    let app = written().await;
    let (status, body) = app.get_authed_json(URL).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["clv_from"], "opening");
    assert_eq!(body["games"], 4);
    let blend = model(&body, "BLEND");
    // Kept releases, pick at the opening, measured to R3 (R4 ignored):
    // - A: home at 0.60; home 12/23 → 69/119: +159/2737 = +5.809280 points.
    // - B: away at 0.45 (the season row's 0.58 would pick home); away
    //   0.542744 → 0.5: −43/1006 = −4.274354 points.
    // - C: away at 0.30 (R2, its opening); away 85/139 = 0.611511 → 69/119
    //   = 0.579832: −524/16541 = −3.167886 points.
    // n 3, mean (5.809280 − 4.274354 − 3.167886) / 3 = −0.544320 → −0.5443,
    // one positive of three.
    let kept = &blend["clv_bases"]["kept_releases"];
    assert_eq!(kept["basis"], "kept_releases", "{blend}");
    assert_eq!(kept["unit"], "probability_points");
    assert_eq!(kept["n"], 3, "{kept}");
    assert_eq!(kept["mean"], -0.5443, "{kept}");
    assert_eq!(kept["positive_share"], 0.3333);
    assert_eq!(kept["reason"], Value::Null);
    // Result rows: each row's open → close home implied probability,
    // signed by the season row's BLEND (the standing forecast):
    // - D: −200 → −200: 0, home pick: 0 (counted, not positive).
    // - A: 120/220 = 0.545455 → 150/250 = 0.6: +5.454545, home: +5.454545.
    // - B: +110 100/210 = 0.476190 → −110 110/210 = 0.523810: +4.761905, home: +4.761905.
    // - C: +150 0.4 → +130 100/230 = 0.434783: +3.478261, away: −3.478261.
    // n 4, mean (0 + 5.454545 + 4.761905 − 3.478261) / 4 = 1.684547 → 1.6845,
    // two positive of four.
    let rows = &blend["clv_bases"]["result_rows"];
    assert_eq!(rows["basis"], "result_rows");
    assert_eq!(rows["unit"], "probability_points");
    assert_eq!(rows["n"], 4, "{rows}");
    assert_eq!(rows["mean"], 1.6845, "{rows}");
    assert_eq!(rows["positive_share"], 0.5);
    assert_eq!(rows["reason"], Value::Null);
    // The headline is the kept releases' figure (it has picks).
    assert_eq!(&blend["clv"], kept);
    // IMPLIED picks the side the opening's no-vig favours: A home (0.521739),
    // B away (0.457256), C away (0.388489): the same three moves as BLEND.
    let implied = &model(&body, "IMPLIED")["clv_bases"]["kept_releases"];
    assert_eq!(
        (&implied["n"], &implied["mean"]),
        (&Value::from(3), &Value::from(-0.5443))
    );

    // from=forecast: pick and price at R3, the standing forecast's release,
    // which is also the close: every move is 0 (A home, B home, C away).
    let (status, body) = app.get_authed_json(&format!("{URL}&from=forecast")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["clv_from"], "forecast");
    let blend = model(&body, "BLEND");
    let kept = &blend["clv_bases"]["kept_releases"];
    assert_eq!(
        (&kept["n"], &kept["mean"]),
        (&Value::from(3), &Value::from(0.0)),
        "{kept}"
    );
    assert_eq!(kept["positive_share"], 0.0);
    // The result rows do not depend on `from`.
    assert_eq!(blend["clv_bases"]["result_rows"]["mean"], 1.6845);
}

#[tokio::test]
async fn a_season_without_kept_releases_has_a_null_kept_basis_with_its_reason() {
    let app = written().await;
    // 2025-26: no kept release carries its games.
    let (status, body) = app
        .get_authed_json("/api/v1/models/nba/won_on_points/calibration?season=2025-26")
        .await;
    assert_eq!(status, 200, "{body}");
    for m in body["models"].as_array().unwrap() {
        let kept = &m["clv_bases"]["kept_releases"];
        assert_eq!(kept["n"], 0, "{m}");
        assert_eq!(kept["mean"], Value::Null, "{m}");
        assert_eq!(kept["reason"], "no_kept_releases", "{m}");
        assert_eq!(m["clv"]["basis"], "result_rows", "{m}");
    }
}

const BOOKS: &str = "books/nba.csv";
const BOOKS_HEADER: &str = "match_id,date,time_est,away_team,home_team,book,book_title,away_point_spread,\
away_point_spread_line,home_point_spread,home_point_spread_line,away_money_line,home_money_line,over_under,\
over_line,under_line,last_update\n";

/// One named book's moneyline of a 19:30 ET game on the 14th.
fn book_row(teams: (&str, &str), book: &str, prices: (i32, i32), updated: &str) -> String {
    let (away, home) = teams;
    let (away_price, home_price) = prices;
    format!("m-{home},2026-11-14,19:30:00,{away},{home},{book},{book},,,,,{away_price},{home_price},,,,{updated}\n")
}

/// CLV against the books' closes: the same picks and first prices as the
/// kept releases' basis, measured to the sharp book's no-vig close and to
/// the consensus of every book's close. Books are published at R2 (before
/// the start) and R4 (after it: re-priced, never a close).
/// - A closes at R2: sharpline −160/+140 → home 0.615385 / 1.032051 =
///   0.596273; eastline −150/+130 → 0.579832; northbook −155/+135 → home
///   155/255 = 0.607843, away 100/235 = 0.425532 → 0.588212. The
///   consensus is the median, 0.588212 (northbook's).
///   BLEND picked home at 12/23 = 0.521739: +7.4534 to the sharp close,
///   +6.6472 to the consensus.
/// - C closes at R2 on eastline alone, +130/−150 → home 50/119 = 0.420168
///   (away 0.579832). BLEND picked away at 0.611511: −3.1679 to the
///   consensus; no sharp close.
/// Sharp: n 1, mean 7.4534. Consensus: n 2, mean (6.6472 − 3.1679) / 2 =
/// 1.7397.
#[tokio::test]
async fn clv_against_the_books_closes_measures_the_same_picks_to_the_sharp_and_the_consensus_close() {
    let app = written().await;
    let (_, before) = app.get_authed_json(URL).await;
    let blend = model(&before, "BLEND");
    // The fixture's own books were all published after these games' start.
    assert_eq!(blend["clv_bases"]["sharp_close"]["reason"], "no_book_closes", "{blend}");
    assert_eq!(blend["clv_bases"]["sharp_close"]["n"], 0);
    let r2 = [
        BOOKS_HEADER.to_owned(),
        book_row(A, "sharpline", (140, -160), R2),
        book_row(A, "eastline", (130, -150), R2),
        book_row(A, "northbook", (135, -155), R2),
        book_row(C, "eastline", (-150, 130), R2),
    ]
    .concat();
    let r4 = [
        BOOKS_HEADER.to_owned(),
        book_row(A, "sharpline", (250, -300), R4),
        book_row(A, "eastline", (250, -300), R4),
        book_row(C, "sharpline", (-300, 250), R4),
    ]
    .concat();
    publish(&app.store_dir, BOOKS, r2.as_bytes(), R2);
    app.keep_releases().await;
    publish(&app.store_dir, BOOKS, r4.as_bytes(), R4);
    app.keep_releases().await;
    let (status, body) = app.get_authed_json(URL).await;
    assert_eq!(status, 200, "{body}");
    let blend = model(&body, "BLEND");
    let sharp = &blend["clv_bases"]["sharp_close"];
    assert_eq!(sharp["basis"], "sharp_close", "{sharp}");
    assert_eq!(sharp["unit"], "probability_points");
    assert_eq!(
        (&sharp["n"], &sharp["mean"]),
        (&Value::from(1), &Value::from(7.4534)),
        "{sharp}"
    );
    assert_eq!(sharp["reason"], Value::Null);
    let consensus = &blend["clv_bases"]["consensus_close"];
    assert_eq!(consensus["basis"], "consensus_close");
    assert_eq!(
        (&consensus["n"], &consensus["mean"], &consensus["positive_share"]),
        (&Value::from(2), &Value::from(1.7397), &Value::from(0.5)),
        "{consensus}"
    );
    // The kept releases' basis is unchanged by the books.
    assert_eq!(blend["clv_bases"]["kept_releases"]["mean"], -0.5443);
    // The public scorecard carries both, from the same calibration.
    let (status, card) = app
        .get_json("/api/v1/public/scorecard/nba/won_on_points?season=2026-27")
        .await;
    assert_eq!(status, 200, "{card}");
    let row = card["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == "BLEND")
        .unwrap();
    assert_eq!(row["clv_vs_sharp_close"]["mean"], 7.4534, "{row}");
    assert_eq!(row["clv_vs_consensus_close"]["n"], 2);
}
