//! The graded record checked against the archive: three predictions
//! releases and a season store written by hand at instants the test
//! chooses; each live row's `archive_check` and `forecast_digest` (the
//! SHA-256 of the release's bytes, computed here) pinned on `/results` and
//! in the CSV export.

use std::collections::HashMap;

use serde_json::Value;

use crate::helpers::{TestApp, at, fixture_now, publish, sha256, spawn_app_with};

const PREDICTIONS: &str = "predictions/nba/won_on_points.csv";
const SEASON: &str = "seasons/nba/won_on_points/2026-27.csv";
const RESULTS: &str = "/api/v1/results/nba/won_on_points?season=2026-27&limit=100";
const EXPORT: &str = "/api/v1/results/nba/won_on_points/export?season=2026-27&format=csv";

const HEADER: &str = "date,time_est,away_team,home_team,away_money_line,home_money_line,open_away_money_line,open_home_money_line,BLEND,CATB\n";

/// R1 is published a quarter second after noon UTC; R2 at 18:00Z, before
/// every start; R3 at 00:45Z on the 15th, after the Bulls at the Heat
/// (19:00 ET = 00:00Z) and the Nets at the Celtics (19:30 ET = 00:30Z)
/// started.
const R1_AT: &str = "2026-11-14T12:00:00.250Z";
const R2_AT: &str = "2026-11-14T18:00:00Z";
const R3_AT: &str = "2026-11-15T00:45:00Z";

fn r1() -> String {
    format!(
        "{HEADER}2026-11-14,19:30:00,brooklyn_nets,boston_celtics,117,-140,117,-140,0.6000,0.58\n\
         2026-11-14,19:30:00,new_york_knicks,toronto_raptors,-120,100,-120,100,0.4400,0.45\n\
         2026-11-14,19:00:00,chicago_bulls,miami_heat,110,-130,110,-130,0.5200,0.52\n\
         2026-11-14,19:00:00,atlanta_hawks,orlando_magic,105,-125,105,-125,0.4800,0.49\n"
    )
}

fn r2() -> String {
    format!(
        "{HEADER}2026-11-14,19:30:00,brooklyn_nets,boston_celtics,120,-145,117,-140,0.6123,0.60\n\
         2026-11-14,19:30:00,new_york_knicks,toronto_raptors,-125,105,-120,100,0.4512,0.46\n\
         2026-11-14,19:00:00,chicago_bulls,miami_heat,112,-132,110,-130,0.5300,0.53\n"
    )
}

fn r3() -> String {
    format!(
        "{HEADER}2026-11-14,19:30:00,brooklyn_nets,boston_celtics,125,-150,117,-140,0.6123,0.60\n\
         2026-11-14,19:00:00,chicago_bulls,miami_heat,115,-135,110,-130,0.5300,0.53\n"
    )
}

const SEASON_HEADER: &str = "date,time_est,season,season_type,away_team,home_team,away_score,home_score,home_money_line,away_money_line,BLEND,forecast_source,forecast_run,forecast_published_at\n";

/// One row per case:
/// - Nets at Celtics: R2's instant and BLEND (0.6123): matched, R2's digest;
/// - Knicks at Raptors: R2's instant, BLEND 0.4400 where R2 has 0.4512: mismatch;
/// - Bulls at Heat: R3's instant and BLEND (0.5300), but R3 came after the
///   start: mismatch;
/// - Hawks at Magic: written to the second (12:00:00Z), R1 was published at
///   12:00:00.25 within that second, BLEND 0.4800 as in R1: matched, R1's digest;
/// - Nuggets at Jazz: 15:00Z, when no release was kept: not_kept;
/// - Suns at Lakers: live without forecast_published_at: not_kept;
/// - Mavericks at Rockets: walk_forward: not_applicable.
pub(crate) fn season() -> String {
    format!(
        "{SEASON_HEADER}2026-11-14,19:30:00,2026-27,regular,brooklyn_nets,boston_celtics,101,110,-145,120,0.6123,live,r2,2026-11-14T18:00:00Z\n\
         2026-11-14,19:30:00,2026-27,regular,new_york_knicks,toronto_raptors,99,98,105,-125,0.4400,live,r2,2026-11-14T18:00:00Z\n\
         2026-11-14,19:00:00,2026-27,regular,chicago_bulls,miami_heat,90,95,-135,115,0.5300,live,r3,2026-11-15T00:45:00Z\n\
         2026-11-14,19:00:00,2026-27,regular,atlanta_hawks,orlando_magic,100,104,-125,105,0.4800,live,r1,2026-11-14T12:00:00Z\n\
         2026-11-14,21:00:00,2026-27,regular,denver_nuggets,utah_jazz,120,100,200,-240,0.2500,live,rx,2026-11-14T15:00:00Z\n\
         2026-11-14,22:00:00,2026-27,regular,phoenix_suns,los_angeles_lakers,111,112,-110,-110,0.5100,live,,\n\
         2026-11-14,20:00:00,2026-27,regular,dallas_mavericks,houston_rockets,108,102,-160,135,0.6400,walk_forward,bt-7,\n"
    )
}

/// The app with the three releases kept at their instants and the season
/// store written.
async fn written() -> TestApp {
    written_with(season()).await
}

/// [`written`] with `season` as the season store.
pub(crate) async fn written_with(season: String) -> TestApp {
    let app = spawn_app_with(fixture_now(), |store| {
        publish(store, PREDICTIONS, r1().as_bytes(), R1_AT);
        std::fs::write(store.join(SEASON), season).unwrap();
    })
    .await;
    app.keep_releases().await;
    publish(&app.store_dir, PREDICTIONS, r2().as_bytes(), R2_AT);
    app.keep_releases().await;
    publish(&app.store_dir, PREDICTIONS, r3().as_bytes(), R3_AT);
    app.keep_releases().await;
    app
}

/// (game id, archive_check, forecast_digest) as worked out by hand.
fn expected() -> Vec<(&'static str, &'static str, Option<String>)> {
    let (d1, d2) = (sha256(r1().as_bytes()), sha256(r2().as_bytes()));
    vec![
        ("nba-20261114-brooklyn_nets-boston_celtics", "matched", Some(d2)),
        ("nba-20261114-new_york_knicks-toronto_raptors", "mismatch", None),
        ("nba-20261114-chicago_bulls-miami_heat", "mismatch", None),
        ("nba-20261114-atlanta_hawks-orlando_magic", "matched", Some(d1)),
        ("nba-20261114-denver_nuggets-utah_jazz", "not_kept", None),
        ("nba-20261114-phoenix_suns-los_angeles_lakers", "not_kept", None),
        ("nba-20261114-dallas_mavericks-houston_rockets", "not_applicable", None),
    ]
}

#[tokio::test]
async fn each_live_row_is_checked_against_the_release_its_forecast_published_at_names() {
    let app = written().await;
    let (status, body) = app.get_authed_json(RESULTS).await;
    assert_eq!(status, 200, "{body}");
    let rows = body["results"].as_array().unwrap();
    assert_eq!(rows.len(), 7);
    let by_id: HashMap<&str, &Value> = rows.iter().map(|r| (r["game_id"].as_str().unwrap(), r)).collect();
    for (id, check, digest) in expected() {
        let row = by_id[id];
        assert_eq!(row["archive_check"], check, "{id}");
        assert_eq!(row["forecast_digest"], digest.map_or(Value::Null, Value::from), "{id}");
    }
    // The two new columns come last, after game_id.
    let keys: Vec<&String> = rows[0].as_object().unwrap().keys().collect();
    assert_eq!(keys[keys.len() - 3..], ["game_id", "archive_check", "forecast_digest"]);
}

#[tokio::test]
async fn the_csv_export_carries_the_checks_in_its_last_two_columns() {
    let app = written().await;
    let response = app.get_authed(EXPORT).await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        header[header.len() - 3..],
        ["game_id", "archive_check", "forecast_digest"]
    );
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let cells: HashMap<String, (String, String)> = lines
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            (
                cells[at("game_id")].to_owned(),
                (
                    cells[at("archive_check")].to_owned(),
                    cells[at("forecast_digest")].to_owned(),
                ),
            )
        })
        .collect();
    assert_eq!(cells.len(), 7);
    for (id, check, digest) in expected() {
        assert_eq!(cells[id], (check.to_owned(), digest.unwrap_or_default()), "{id}");
    }
}

/// A release kept later at the instant the Nuggets' row names (a backfill
/// at 15:00Z) turns its `not_kept` into `matched`: the served body follows
/// the kept releases, not only the season store.
#[tokio::test]
async fn a_release_kept_later_at_the_named_instant_changes_the_served_check() {
    let app = written().await;
    let (_, before) = app.get_authed_json(RESULTS).await;
    let nuggets = |body: &Value| {
        body["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["game_id"] == "nba-20261114-denver_nuggets-utah_jazz")
            .cloned()
            .unwrap()
    };
    assert_eq!(nuggets(&before)["archive_check"], "not_kept");

    let backfilled = format!("{HEADER}2026-11-14,21:00:00,denver_nuggets,utah_jazz,200,-240,200,-240,0.2500,0.26\n");
    let releases = app.state.releases.clone();
    releases
        .keep(
            linecast_core::ports::releases::Series::Predictions(
                linecast_domain::Sport::Nba,
                linecast_domain::ModelType::WonOnPoints,
            ),
            at("2026-11-14T15:00:00Z"),
            bytes::Bytes::from(backfilled.clone()),
        )
        .await
        .unwrap();
    app.state.responses.memo.clear();
    let (_, after) = app.get_authed_json(RESULTS).await;
    assert_eq!(nuggets(&after)["archive_check"], "matched");
    assert_eq!(nuggets(&after)["forecast_digest"], sha256(backfilled.as_bytes()));
}

/// A named release whose archived bytes cannot be read is a 503, never an
/// empty or wrong check.
#[tokio::test]
async fn an_unreadable_named_release_is_a_503() {
    let app = written().await;
    let archived = app.store_dir.join(format!(
        "archive/nba/predictions/won_on_points/{}.csv",
        sha256(r2().as_bytes())
    ));
    std::fs::remove_file(&archived).unwrap();
    // An instance that has not read the release (the one that kept it
    // holds it parsed: its watcher read it to tell what changed), over the
    // same store and database.
    let cold = crate::helpers::spawn_with_settings(
        linecast_api::settings::Settings::for_tests(
            &format!("file://{}", app.store_dir.display()),
            &app.var_dir,
            fixture_now(),
        ),
        tempfile::tempdir().unwrap(),
        app.store_dir.clone(),
    )
    .await;
    let response = cold.get_authed(RESULTS).await;
    assert_eq!(response.status(), 503);
    let response = cold.get_authed(EXPORT).await;
    assert_eq!(response.status(), 503);
}
