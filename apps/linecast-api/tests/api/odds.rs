//! `GET /api/v1/odds/{sport}` over HTTP: every odds row with its match id and
//! lines, the `YYYY-MM-DD HH:MM:SS` stamps and the order.

use std::collections::BTreeSet;

use chrono::NaiveDateTime;
use serde_json::Value;

use crate::helpers::{
    FIXTURE_TODAY, KeyRing, assert_error_shape, csv_rows, fixture_now, fixtures_dir, spawn_app, spawn_app_with,
};

const SPORTS: [&str; 6] = ["mlb", "nba", "nfl", "nhl", "ncaaf", "ncaab"];
const LINE_FIELDS: [&str; 9] = [
    "away_point_spread",
    "away_point_spread_line",
    "home_point_spread",
    "home_point_spread_line",
    "away_money_line",
    "home_money_line",
    "over_under",
    "over_line",
    "under_line",
];

/// `YYYY-MM-DD HH:MM:SS` exactly: digits and separators in place, a real instant.
fn is_stamp(text: &str) -> bool {
    let shape = text.len() == 19
        && text.char_indices().all(|(i, c)| match i {
            4 | 7 => c == '-',
            10 => c == ' ',
            13 | 16 => c == ':',
            _ => c.is_ascii_digit(),
        });
    shape && NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").is_ok()
}

#[test]
fn the_stamp_check_rejects_iso_and_short_forms() {
    assert!(is_stamp("2026-11-15 14:13:17"));
    assert!(!is_stamp("2026-11-15T14:13:17"));
    assert!(!is_stamp("2026-11-15 14:13"));
    assert!(!is_stamp("2026-11-15 14:13:17Z"));
    assert!(!is_stamp("2026-13-15 14:13:17"));
}

#[tokio::test]
async fn odds_serve_every_row_with_its_match_id_and_lines_sorted_by_date_then_time() {
    let app = spawn_app().await;
    let mut ring = KeyRing::new(&app);
    let mut nulls = 0;
    for sport in SPORTS {
        let rows = csv_rows(&fixtures_dir().join(format!("odds/{sport}.csv")));
        let (status, body) = ring.get_json(&format!("/api/v1/odds/{sport}")).await;
        assert_eq!(status, 200, "{sport}: {body}");
        let top: BTreeSet<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            top,
            BTreeSet::from(["sport", "date", "games", "last_updated"]),
            "{sport}"
        );
        assert_eq!(body["sport"], sport);
        assert_eq!(body["date"], FIXTURE_TODAY, "{sport}: the served slate date");
        let games = body["games"].as_array().unwrap();
        assert_eq!(games.len(), rows.len(), "{sport}: every odds row");
        let mut expected_keys: BTreeSet<&str> = [
            "game_id",
            "match_id",
            "date",
            "time",
            "away_team",
            "home_team",
            "last_updated",
            "starts_at",
            "started",
        ]
        .into();
        expected_keys.extend(LINE_FIELDS);
        let order: Vec<(String, String)> = games
            .iter()
            .map(|g| {
                (
                    g["date"].as_str().unwrap().to_owned(),
                    g["time"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted, "{sport}: sorted by date then time");
        for game in games {
            let keys: BTreeSet<&str> = game.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys, expected_keys, "{sport}: {game}");
            let row = rows
                .iter()
                .find(|r| game["match_id"] == r["match_id"].as_str())
                .unwrap_or_else(|| panic!("{game}"));
            assert_eq!(game["date"], row["date"].as_str());
            assert_eq!(game["time"], row["time_est"].as_str());
            assert_eq!(game["away_team"], row["away_team"].as_str());
            assert_eq!(game["home_team"], row["home_team"].as_str());
            for field in LINE_FIELDS {
                let raw = &row[field];
                let expected = (!raw.is_empty()).then(|| raw.parse::<f64>().unwrap());
                nulls += usize::from(expected.is_none());
                assert_eq!(game[field].as_f64(), expected, "{sport} {field}: {game}");
                assert!(expected.is_some() || game[field] == Value::Null);
            }
            let stamp = game["last_updated"].as_str().unwrap();
            assert!(is_stamp(stamp), "{stamp}");
            assert_eq!(stamp, row["last_updated"]);
            let starts_at = chrono::DateTime::parse_from_rfc3339(game["starts_at"].as_str().unwrap()).unwrap();
            assert_eq!(
                game["started"],
                starts_at <= crate::helpers::fixture_now(),
                "{sport}: started is judged at the request's instant: {game}"
            );
        }
        let newest = rows.iter().map(|r| r["last_updated"].clone()).max();
        assert_eq!(
            body["last_updated"].as_str().map(str::to_owned),
            newest,
            "{sport}: newest game stamp"
        );
        if let Some(stamp) = body["last_updated"].as_str() {
            assert!(is_stamp(stamp), "{stamp}");
        }
    }
    assert!(nulls > 0, "the fixture has games without a line");
}

#[tokio::test]
async fn a_sport_without_an_odds_artifact_is_a_404_and_an_unknown_sport_a_400() {
    let app = spawn_app_with(fixture_now(), |store| {
        std::fs::remove_file(store.join("odds/nhl.csv")).unwrap();
    })
    .await;
    let (status, body) = app.get_authed_json("/api/v1/odds/nhl").await;
    let detail = assert_error_shape(status, &body, 404);
    assert_eq!(detail, "No nhl odds", "names the sport, not the object key");
    let (status, body) = app.get_authed_json("/api/v1/odds/curling").await;
    let detail = assert_error_shape(status, &body, 400);
    assert!(detail.contains("sport") && detail.contains("curling"), "{detail}");
}

#[tokio::test]
async fn a_corrupt_odds_artifact_is_a_503() {
    let app = spawn_app_with(fixture_now(), |store| {
        let path = store.join("odds/nba.csv");
        let text = std::fs::read_to_string(&path).unwrap();
        // The first row's last_updated (its last column) is not a stamp.
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let cut = lines[1].rfind(',').unwrap();
        lines[1] = format!("{},yesterday", &lines[1][..cut]);
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
    })
    .await;
    let (status, body) = app.get_authed_json("/api/v1/odds/nba").await;
    assert_error_shape(status, &body, 503);
}
