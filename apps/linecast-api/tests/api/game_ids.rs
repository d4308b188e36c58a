//! One game id everywhere: the ids are spelled here by hand for fixture
//! games (a doubleheader whose later game the artifact lists first, and a
//! start moved between the predictions and the odds), and every endpoint
//! that names a game carries the same id for it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::helpers::{TestApp, fixture_now, spawn_app_with};

/// `(date, time, away, home)` of a served game; `time` as the payload has it.
type Key = (String, String, String, String);

fn key_of(game: &Value, time_field: &str) -> Key {
    let s = |f: &str| game[f].as_str().unwrap_or_else(|| panic!("{f} in {game}")).to_owned();
    (s("date"), s(time_field), s("away_team"), s("home_team"))
}

fn ids(games: &Value, time_field: &str) -> BTreeMap<Key, String> {
    games
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (key_of(g, time_field), g["game_id"].as_str().unwrap().to_owned()))
        .collect()
}

fn k(date: &str, time: &str, away: &str, home: &str) -> Key {
    (date.into(), time.into(), away.into(), home.into())
}

/// The fixture store with two edits: a second Mavericks at Hornets game on
/// the fixture date at 21:00, written *before* the 18:00 game in both the
/// predictions and the odds, and the Celtics at Bulls game moved from 22:30
/// to 23:00 in the odds only.
async fn app() -> TestApp {
    spawn_app_with(fixture_now(), |store| {
        let predictions = store.join("predictions/nba/won_on_points.csv");
        let text = std::fs::read_to_string(&predictions).unwrap();
        let first = text
            .lines()
            .find(|l| l.starts_with("2026-11-15,18:00:00,dallas_mavericks,charlotte_hornets"))
            .unwrap();
        let second = first.replace("18:00:00", "21:00:00");
        let text = text.replacen(first, &format!("{second}\n{first}"), 1);
        std::fs::write(&predictions, text).unwrap();

        let odds = store.join("odds/nba.csv");
        let text = std::fs::read_to_string(&odds).unwrap();
        let first = text
            .lines()
            .find(|l| l.contains(",2026-11-15,18:00:00,dallas_mavericks,charlotte_hornets"))
            .unwrap();
        let second = first.replacen(",18:00:00,", ",21:00:00,", 1).replacen(
            first.split(',').next().unwrap(),
            "feedc0de00000002",
            1,
        );
        let text = text.replacen(first, &format!("{second}\n{first}"), 1).replace(
            ",2026-11-15,22:30:00,boston_celtics",
            ",2026-11-15,23:00:00,boston_celtics",
        );
        std::fs::write(&odds, text).unwrap();
    })
    .await
}

#[tokio::test]
async fn every_endpoint_names_a_game_by_the_one_id_spelled_from_its_sport_date_and_teams() {
    let app = app().await;
    let (status, predictions) = app
        .get_authed_json("/api/v1/predictions/nba/won_on_points?upcoming_only=false")
        .await;
    assert_eq!(status, 200, "{predictions}");
    let predicted = ids(&predictions["games"], "time");
    let celtics = "nba-20261115-boston_celtics-chicago_bulls";
    let (early, late) = (
        "nba-20261115-dallas_mavericks-charlotte_hornets",
        "nba-20261115-dallas_mavericks-charlotte_hornets-2",
    );
    assert_eq!(
        predicted[&k("2026-11-15", "18:00:00", "dallas_mavericks", "charlotte_hornets")],
        early
    );
    assert_eq!(
        predicted[&k("2026-11-15", "21:00:00", "dallas_mavericks", "charlotte_hornets")],
        late
    );
    assert_eq!(
        predicted[&k("2026-11-15", "22:30:00", "boston_celtics", "chicago_bulls")],
        celtics
    );
    assert_eq!(
        predicted[&k("2026-11-14", "19:30:00", "brooklyn_nets", "boston_celtics")],
        "nba-20261114-brooklyn_nets-boston_celtics"
    );
    let distinct: std::collections::BTreeSet<&String> = predicted.values().collect();
    assert_eq!(distinct.len(), predicted.len(), "no two games share an id");

    // The odds: the same ids, the moved start included; match_id stays.
    let (status, odds) = app.get_authed_json("/api/v1/odds/nba").await;
    assert_eq!(status, 200, "{odds}");
    let priced = ids(&odds["games"], "time");
    assert_eq!(
        priced[&k("2026-11-15", "23:00:00", "boston_celtics", "chicago_bulls")],
        celtics
    );
    assert_eq!(
        priced[&k("2026-11-15", "18:00:00", "dallas_mavericks", "charlotte_hornets")],
        early
    );
    assert_eq!(
        priced[&k("2026-11-15", "21:00:00", "dallas_mavericks", "charlotte_hornets")],
        late
    );
    assert!(
        odds["games"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["match_id"].is_string())
    );

    // The comparison (`HH:MM` there) and the public feed (display names
    // there): each game's id is the predictions' id of that game.
    let (status, markets) = app.get_authed_json("/api/v1/markets/nba").await;
    assert_eq!(status, 200, "{markets}");
    let compared = markets["games"].as_array().unwrap();
    assert!(!compared.is_empty());
    for game in compared {
        let (date, time, away, home) = key_of(game, "time");
        let id = game["game_id"].as_str().unwrap();
        assert_eq!(id, predicted[&k(&date, &format!("{time}:00"), &away, &home)], "{game}");
    }
    let (status, public) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    assert_eq!(status, 200, "{public}");
    let picks = public["games"].as_array().unwrap();
    assert!(!picks.is_empty(), "{public}");
    let teams = crate::helpers::csv_rows(&app.store_dir.join("teams/nba.csv"));
    let slug = |display: &str| {
        teams
            .iter()
            .find(|t| t["display_name"] == display)
            .unwrap_or_else(|| panic!("{display}"))["slug"]
            .clone()
    };
    for game in picks {
        let (date, time, away, home) = key_of(game, "time");
        assert_eq!(
            game["game_id"].as_str().unwrap(),
            predicted[&k(&date, &time, &slug(&away), &slug(&home))],
            "{game}"
        );
    }
}

#[tokio::test]
async fn results_exports_and_replays_number_a_doubleheader_by_start_and_agree_game_by_game() {
    let app = app().await;
    let (status, page) = app
        .get_authed_json("/api/v1/results/mlb/won_on_points?season=2026&limit=100000")
        .await;
    assert_eq!(status, 200, "{page}");
    let results = ids(&page["results"], "time_est");
    assert_eq!(
        results[&k("2026-07-26", "13:05:00", "athletics", "chicago_white_sox")],
        "mlb-20260726-athletics-chicago_white_sox"
    );
    assert_eq!(
        results[&k("2026-07-26", "18:10:00", "athletics", "chicago_white_sox")],
        "mlb-20260726-athletics-chicago_white_sox-2"
    );
    assert_eq!(
        results[&k("2026-10-14", "19:05:00", "chicago_white_sox", "athletics")],
        "mlb-20261014-chicago_white_sox-athletics"
    );

    // The CSV export carries the same id in a last column, before the
    // archive check's two.
    let response = app
        .get_authed("/api/v1/results/mlb/won_on_points/export?season=2026&format=csv")
        .await;
    assert_eq!(response.status(), 200);
    let csv = response.text().await.unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        &header[header.len() - 3..],
        ["game_id", "archive_check", "forecast_digest"]
    );
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mut exported = 0;
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let key = k(
            cells[at("date")],
            cells[at("time_est")],
            cells[at("away_team")],
            cells[at("home_team")],
        );
        assert_eq!(cells[at("game_id")], results[&key], "{line}");
        exported += 1;
    }
    assert_eq!(exported, results.len());

    // Every replayed bet and excluded row names its results row's id.
    let (status, replay) = app
        .get_authed_json(
            "/api/v1/strategies/mlb/won_on_points/replay/edge-pb?season=2026&accounting=recorded_v2&include_excluded=true",
        )
        .await;
    assert_eq!(status, 200, "{replay}");
    let mut checked = 0;
    for list in ["games", "excluded_rows"] {
        for game in replay[list].as_array().unwrap() {
            let key = key_of(game, "time_est");
            assert_eq!(game["game_id"].as_str().unwrap(), results[&key], "{game}");
            checked += 1;
        }
    }
    assert!(checked > 0, "{replay}");
}
