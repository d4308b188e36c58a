use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::helpers::{FIXTURE_TODAY, fixture_now, fixtures_dir, spawn_app, spawn_app_with};

const SPORTS: [&str; 6] = ["mlb", "nba", "nfl", "nhl", "ncaaf", "ncaab"];
const MARKETS: [(&str, &str); 3] = [
    ("over_under", "over_under"),
    ("moneyline", "won_on_points"),
    ("spread", "won_on_spread"),
];

fn date_time(game: &Value) -> (String, String) {
    (
        game["date"].as_str().unwrap().to_owned(),
        game["time"].as_str().unwrap().to_owned(),
    )
}

fn read_csv(path: &std::path::Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            headers
                .iter()
                .zip(r.unwrap().iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn every_sport_and_market_serves_todays_slate_sorted_by_date_then_time() {
    let app = spawn_app().await;
    for sport in SPORTS {
        for (market, model_type) in MARKETS {
            let (status, body) = app.get_json(&format!("/api/v1/public/ml-picks/{sport}/{market}")).await;
            assert_eq!(status, 200, "{sport}/{market}: {body}");
            assert_eq!(body["sport"], sport);
            assert_eq!(body["market"], market);
            assert_eq!(body["model_type"], model_type);
            assert!(body["note"].as_str().unwrap().contains("free"));
            assert!(DateTime::parse_from_rfc3339(body["predictions_date"].as_str().unwrap()).is_ok());
            let games = body["games"].as_array().unwrap();
            let keys: Vec<_> = games.iter().map(date_time).collect();
            let mut sorted = keys.clone();
            sorted.sort();
            assert_eq!(keys, sorted, "{sport}/{market} sorted by date then time");
            assert!(
                keys.iter().all(|(d, _)| d.as_str() >= FIXTURE_TODAY),
                "{sport}/{market}: {keys:?}"
            );
        }
    }
}

#[tokio::test]
async fn upcoming_only_false_returns_the_whole_artifact_including_earlier_games() {
    let app = spawn_app().await;
    let rows = read_csv(&fixtures_dir().join("predictions/nba/won_on_points.csv"));
    let (_, all) = app
        .get_json("/api/v1/public/ml-picks/nba/moneyline?upcoming_only=false")
        .await;
    let (_, upcoming) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    let all = all["games"].as_array().unwrap();
    assert_eq!(all.len(), rows.len(), "every artifact row is served");
    assert!(
        all.iter().any(|g| g["date"].as_str().unwrap() < FIXTURE_TODAY),
        "the fixture has earlier games"
    );
    let expected_upcoming = rows.iter().filter(|r| r["date"].as_str() >= FIXTURE_TODAY).count();
    assert_eq!(upcoming["games"].as_array().unwrap().len(), expected_upcoming);
}

#[tokio::test]
async fn a_late_game_stays_on_its_et_date_after_utc_midnight() {
    // 23:30 ET on the fixture date is 04:30 UTC the next day.
    let late = DateTime::parse_from_rfc3339("2026-11-16T04:30:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let app = spawn_app_with(late, |_| {}).await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    assert_eq!(status, 200);
    let dates: Vec<_> = body["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| date_time(g).0)
        .collect();
    assert!(
        dates.iter().any(|d| d == FIXTURE_TODAY),
        "today's ET games still served: {dates:?}"
    );
}

#[tokio::test]
async fn yesterdays_slate_stays_visible_until_todays_run_completes() {
    let app = spawn_app_with(fixture_now(), |dir| {
        let path = dir.join(format!("releases/nba/{FIXTURE_TODAY}.json"));
        let mut manifest: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        manifest["run_completed_at"] = Value::Null;
        std::fs::write(path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    })
    .await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    assert_eq!(status, 200);
    let dates: Vec<_> = body["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| date_time(g).0)
        .collect();
    let earliest = dates.iter().min().unwrap();
    assert!(earliest.as_str() < FIXTURE_TODAY, "yesterday's games remain: {dates:?}");
}

#[tokio::test]
async fn placeholder_zero_openers_are_served_as_null() {
    let app = spawn_app().await;
    let mut checked = 0;
    for sport in SPORTS {
        let teams = read_csv(&fixtures_dir().join(format!("teams/{sport}.csv")));
        let name = |slug: &str| {
            teams
                .iter()
                .find(|t| t["slug"] == slug)
                .map(|t| t["display_name"].clone())
                .unwrap()
        };
        for (market, model_type) in MARKETS {
            let rows = read_csv(&fixtures_dir().join(format!("predictions/{sport}/{model_type}.csv")));
            let (_, body) = app
                .get_json(&format!("/api/v1/public/ml-picks/{sport}/{market}?upcoming_only=false"))
                .await;
            let games = body["games"].as_array().unwrap();
            for row in &rows {
                let game = games.iter().find(|g| {
                    g["date"] == row["date"].as_str()
                        && g["time"] == row["time_est"].as_str()
                        && g["away_team"] == name(&row["away_team"]).as_str()
                        && g["home_team"] == name(&row["home_team"]).as_str()
                });
                let Some(game) = game else { continue };
                for (field, raw) in row.iter().filter(|(k, _)| k.starts_with("open_")) {
                    if raw.is_empty() || raw.parse::<f64>().unwrap() == 0.0 {
                        assert_eq!(game["lines"][field], Value::Null, "{sport}/{market} {field}: {game}");
                        checked += 1;
                    } else {
                        assert_eq!(
                            game["lines"][field].as_f64(),
                            raw.parse::<f64>().ok(),
                            "{sport}/{market} {field}"
                        );
                    }
                }
            }
        }
    }
    assert!(checked > 0, "the fixture contains placeholder or missing openers");
}

#[tokio::test]
async fn picks_follow_blend_and_names_come_from_the_team_table() {
    let app = spawn_app().await;
    let teams = read_csv(&fixtures_dir().join("teams/nfl.csv"));
    let display: Vec<&str> = teams.iter().map(|t| t["display_name"].as_str()).collect();
    for (market, _) in MARKETS {
        let (_, body) = app
            .get_json(&format!("/api/v1/public/ml-picks/nfl/{market}?upcoming_only=false"))
            .await;
        for game in body["games"].as_array().unwrap() {
            assert!(display.contains(&game["home_team"].as_str().unwrap()), "{game}");
            assert!(display.contains(&game["away_team"].as_str().unwrap()), "{game}");
            let p = game["blend_probability"].as_f64().unwrap();
            let side = game["pick_side"].as_str().unwrap();
            let (pos, neg) = if market == "over_under" {
                ("over", "under")
            } else {
                ("home", "away")
            };
            let expected = if p > 0.5 {
                pos
            } else if p < 0.5 {
                neg
            } else {
                "none"
            };
            assert_eq!(side, expected, "{game}");
            let confidence = game["confidence"].as_f64().unwrap();
            assert!((confidence - p.max(1.0 - p)).abs() < 1e-4, "{game}");
            assert!(game["models"]["BLEND"].is_number());
            assert!(game["market_line"].as_str().is_some_and(|s| !s.is_empty()));
        }
    }
}

#[tokio::test]
async fn the_public_models_carry_implied_and_every_models_used_key_in_every_game() {
    // One game's AI cell emptied: the pipeline leaves it empty when the AI
    // model had no forecast for the game.
    let app = crate::helpers::spawn_app_with(crate::helpers::fixture_now(), crate::helpers::blank_first_ai_cell).await;
    let rows = read_csv(&app.store_dir.join("predictions/nba/won_on_points.csv"));
    let (status, body) = app
        .get_json("/api/v1/public/ml-picks/nba/moneyline?upcoming_only=false")
        .await;
    assert_eq!(status, 200, "{body}");
    let used: Vec<&str> = body["models_used"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(used.first(), Some(&"IMPLIED"), "{used:?}");
    let mut blank_ai = 0;
    for game in body["games"].as_array().unwrap() {
        let models = game["models"].as_object().unwrap();
        let keys: Vec<&str> = models.keys().map(String::as_str).collect();
        assert_eq!(keys, used, "{game}");
        let cell = |r: &HashMap<String, String>, k: &str| (!r[k].is_empty()).then(|| r[k].parse::<f64>().unwrap());
        let candidates: Vec<_> = rows
            .iter()
            .filter(|r| {
                r["date"] == game["date"].as_str().unwrap()
                    && r["time_est"] == game["time"].as_str().unwrap()
                    && cell(r, "home_money_line") == game["lines"]["home_money_line"].as_f64()
                    && cell(r, "away_money_line") == game["lines"]["away_money_line"].as_f64()
                    && cell(r, "BLEND") == game["blend_probability"].as_f64()
            })
            .collect();
        assert_eq!(candidates.len(), 1, "{game}");
        let row = candidates[0];
        let price = |k: &str| (!row[k].is_empty()).then(|| row[k].parse::<f64>().unwrap());
        let want = crate::predictions::no_vig(price("home_money_line"), price("away_money_line"));
        match (models["IMPLIED"].as_f64(), want) {
            (Some(got), Some(want)) => assert!((got - want).abs() < 1e-6, "{got} vs {want}: {game}"),
            (got, want) => assert_eq!(got, want, "{game}"),
        }
        if row["AI"].is_empty() {
            blank_ai += 1;
            assert!(models["AI"].is_null(), "{game}");
        }
    }
    assert!(blank_ai > 0, "the fixture has an empty AI cell");
}

#[tokio::test]
async fn a_missing_team_table_falls_back_to_slugs_instead_of_failing_the_feed() {
    let app = spawn_app_with(fixture_now(), |store| {
        std::fs::remove_file(store.join("teams/nba.csv")).unwrap();
    })
    .await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    assert_eq!(status, 200, "{body}");
    let games = body["games"].as_array().unwrap();
    assert!(!games.is_empty());
    for game in games {
        let home = game["home_team"].as_str().unwrap();
        assert!(home.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "slug: {game}");
    }
}

#[tokio::test]
async fn upcoming_only_false_reads_no_release_manifest() {
    // An unreadable manifest for today breaks the slate rule, not the whole artifact.
    let app = spawn_app_with(fixture_now(), |store| {
        std::fs::write(store.join(format!("releases/nba/{FIXTURE_TODAY}.json")), "{ not json").unwrap();
    })
    .await;
    let (status, body) = app
        .get_json("/api/v1/public/ml-picks/nba/moneyline?upcoming_only=false")
        .await;
    assert_eq!(status, 200, "{body}");
    let rows = read_csv(&fixtures_dir().join("predictions/nba/won_on_points.csv"));
    assert_eq!(body["games"].as_array().unwrap().len(), rows.len());
}
