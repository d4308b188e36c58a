//! `GET /api/v1/predictions/{sport}/{model_type}` over HTTP: the slate rules
//! (docs/decisions.md), the per-model-type fields, placeholder openers (docs/decisions.md), EV and errors.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use chrono::DateTime;
use serde_json::Value;

use crate::helpers::{
    FIXTURE_TODAY, KeyRing, assert_error_shape, csv_headers, csv_rows, fixture_now, fixtures_dir, instant, spawn_app,
    spawn_app_with,
};

const SPORTS: [&str; 6] = ["mlb", "nba", "nfl", "nhl", "ncaaf", "ncaab"];
const MODEL_TYPES: [&str; 3] = ["over_under", "won_on_points", "won_on_spread"];
const MODEL_COLUMNS: [&str; 9] = ["IMPLIED", "AI", "BLEND", "CATB", "RF", "LGB", "LOGR", "XGB", "XT"];

type Row = HashMap<String, String>;

/// A model type's served names: current line fields, opening fields,
/// (negative EV, positive EV) and (negative price, positive price).
type Fields = (
    &'static [&'static str],
    &'static [&'static str],
    (&'static str, &'static str),
    (&'static str, &'static str),
);

fn fields(model_type: &str) -> Fields {
    match model_type {
        "over_under" => (
            &["over_under", "over_line", "under_line"],
            &["open_over_under"],
            ("ev_neg", "ev_pos"),
            ("under_line", "over_line"),
        ),
        "won_on_spread" => (
            &[
                "away_point_spread",
                "home_point_spread",
                "away_point_spread_line",
                "home_point_spread_line",
            ],
            &["open_away_point_spread", "open_home_point_spread"],
            ("ev_away_spread", "ev_home_spread"),
            ("away_point_spread_line", "home_point_spread_line"),
        ),
        "won_on_points" => (
            &["away_money_line", "home_money_line"],
            &["open_away_money_line", "open_home_money_line"],
            ("ev_away_ml", "ev_home_ml"),
            ("away_money_line", "home_money_line"),
        ),
        other => panic!("no model type {other}"),
    }
}

fn artifact(sport: &str, model_type: &str) -> std::path::PathBuf {
    fixtures_dir().join(format!("predictions/{sport}/{model_type}.csv"))
}

fn key_of(game: &Value) -> (String, String, String, String) {
    let s = |k: &str| game[k].as_str().unwrap().to_owned();
    (s("date"), s("time"), s("away_team"), s("home_team"))
}

fn row_for<'a>(rows: &'a [Row], game: &Value) -> &'a Row {
    let (date, time, away, home) = key_of(game);
    rows.iter()
        .find(|r| r["date"] == date && r["time_est"] == time && r["away_team"] == away && r["home_team"] == home)
        .unwrap_or_else(|| panic!("served game {game} is a row of the artifact"))
}

fn number(cell: &str) -> Option<f64> {
    (!cell.is_empty()).then(|| cell.parse().unwrap())
}

fn decimal(american: f64) -> Option<f64> {
    if american >= 100.0 {
        Some(1.0 + american / 100.0)
    } else if american <= -100.0 {
        Some(1.0 + 100.0 / -american)
    } else {
        None
    }
}

fn assert_sorted(games: &[Value], what: &str) {
    let keys: Vec<_> = games.iter().map(|g| (key_of(g).0, key_of(g).1)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "{what}: sorted by date then time");
}

fn edit_manifest(store: &Path, sport: &str, date: &str, edit: impl FnOnce(&mut Value)) {
    let path = store.join(format!("releases/{sport}/{date}.json"));
    let mut manifest: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut manifest);
    std::fs::write(path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

#[tokio::test]
async fn every_game_carries_exactly_its_model_types_line_opening_and_ev_fields() {
    let app = spawn_app().await;
    let mut ring = KeyRing::new(&app);
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let (status, body) = ring
                .get_json(&format!("/api/v1/predictions/{sport}/{model_type}?upcoming_only=false"))
                .await;
            assert_eq!(status, 200, "{sport}/{model_type}: {body}");
            assert_eq!(body["sport"], sport);
            assert_eq!(body["model_type"], model_type);
            assert!(
                DateTime::parse_from_rfc3339(body["predictions_date"].as_str().unwrap()).is_ok(),
                "{body}"
            );
            let top: BTreeSet<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(
                top,
                BTreeSet::from(["sport", "model_type", "predictions_date", "games", "models_used"])
            );
            let (lines, opens, (ev_neg, ev_pos), _) = fields(model_type);
            let mut expected: BTreeSet<&str> = [
                "game_id",
                "date",
                "time",
                "away_team",
                "home_team",
                "predictions",
                ev_neg,
                ev_pos,
            ]
            .into();
            expected.extend(lines);
            expected.extend(opens);
            let games = body["games"].as_array().unwrap();
            // mlb is out of season on the fixtures' today: its simulated
            // market carries no game, so its slate is empty.
            assert_eq!(games.is_empty(), sport == "mlb", "{sport}/{model_type}: {body}");
            for game in games {
                let keys: BTreeSet<&str> = game.as_object().unwrap().keys().map(String::as_str).collect();
                assert_eq!(keys, expected, "{sport}/{model_type}: {game}");
            }
        }
    }
}

#[tokio::test]
async fn upcoming_only_false_serves_every_row_and_the_default_leaves_out_earlier_days() {
    let app = spawn_app().await;
    let mut ring = KeyRing::new(&app);
    let mut left_out = 0;
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let rows = csv_rows(&artifact(sport, model_type));
            let path = format!("/api/v1/predictions/{sport}/{model_type}");
            let (_, all) = ring.get_json(&format!("{path}?upcoming_only=false")).await;
            let all = all["games"].as_array().unwrap();
            assert_eq!(all.len(), rows.len(), "{sport}/{model_type}: every artifact row");
            let served: BTreeSet<_> = all.iter().map(key_of).collect();
            assert_eq!(served.len(), rows.len(), "{sport}/{model_type}: each row once");
            for game in all {
                row_for(&rows, game);
            }
            for query in ["", "?upcoming_only=true"] {
                let (status, upcoming) = ring.get_json(&format!("{path}{query}")).await;
                assert_eq!(status, 200);
                let dates: Vec<_> = upcoming["games"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| key_of(g).0)
                    .collect();
                let expected = rows.iter().filter(|r| r["date"].as_str() >= FIXTURE_TODAY).count();
                assert_eq!(dates.len(), expected, "{sport}/{model_type}{query}: {dates:?}");
                assert!(dates.iter().all(|d| d.as_str() >= FIXTURE_TODAY));
            }
            left_out += rows.len() - rows.iter().filter(|r| r["date"].as_str() >= FIXTURE_TODAY).count();
        }
    }
    assert!(left_out > 0, "the fixture holds games before today");
}

#[tokio::test]
async fn games_are_sorted_by_date_then_time_and_a_doubleheader_stays_two_games() {
    // The committed nhl artifact has no doubleheader: add the early game of
    // one (same teams, same day, 13:05) at the top, out of order.
    let app = spawn_app_with(fixture_now(), |store| {
        let path = store.join("predictions/nhl/won_on_points.csv");
        let text = std::fs::read_to_string(&path).unwrap();
        let (header, body) = text.split_once('\n').unwrap();
        let early =
            "2026-11-16,13:05:00,colorado_avalanche,calgary_flames,120,-140,,,0.5611,0.55,0.56,0.57,0.55,0.56,0.57";
        std::fs::write(&path, format!("{header}\n{early}\n{body}")).unwrap();
    })
    .await;
    let mut ring = KeyRing::new(&app);
    let (_, body) = ring.get_json("/api/v1/predictions/nhl/won_on_points").await;
    let games = body["games"].as_array().unwrap();
    assert_sorted(games, "nhl");
    let pair: Vec<_> = games
        .iter()
        .filter(|g| {
            g["date"] == "2026-11-16" && g["away_team"] == "colorado_avalanche" && g["home_team"] == "calgary_flames"
        })
        .collect();
    assert_eq!(pair.len(), 2, "both games of the doubleheader: {pair:?}");
    assert_eq!(pair[0]["time"], "13:05:00");
    assert_eq!(pair[1]["time"], "19:00:00");
    assert_eq!(pair[0]["predictions"]["BLEND"], 0.5611);
    assert_eq!(pair[0]["home_money_line"], -140.0);
    assert_ne!(
        pair[1]["predictions"]["BLEND"], 0.5611,
        "the two games keep their own rows"
    );

    let app = spawn_app().await;

    let mut ring = KeyRing::new(&app);
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let (_, body) = ring
                .get_json(&format!("/api/v1/predictions/{sport}/{model_type}?upcoming_only=false"))
                .await;
            assert_sorted(body["games"].as_array().unwrap(), &format!("{sport}/{model_type}"));
        }
    }
}

#[tokio::test]
async fn models_used_are_implied_and_the_artifacts_model_columns_with_ai_only_where_present() {
    let app = spawn_app().await;
    let mut ring = KeyRing::new(&app);
    let mut with_ai = BTreeSet::new();
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let headers = csv_headers(&artifact(sport, model_type));
            let expected: Vec<&str> = MODEL_COLUMNS
                .iter()
                .copied()
                .filter(|c| *c == "IMPLIED" || headers.iter().any(|h| h == c))
                .collect();
            let (_, body) = ring
                .get_json(&format!("/api/v1/predictions/{sport}/{model_type}"))
                .await;
            let used: Vec<&str> = body["models_used"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            assert_eq!(used, expected, "{sport}/{model_type}");
            if used.contains(&"AI") {
                with_ai.insert(format!("{sport}/{model_type}"));
            }
        }
    }
    let expected: BTreeSet<String> = ["mlb", "nba", "nfl", "ncaab"]
        .iter()
        .map(|s| format!("{s}/won_on_points"))
        .collect();
    assert_eq!(with_ai, expected, "AI only where the artifact has it");
}

/// The no-vig probability of the positive side, worked from the two
/// American prices: each side's raw implied probability (100 / (a + 100)
/// for a positive price, -a / (-a + 100) for a negative one), normalized.
pub fn no_vig(positive: Option<f64>, negative: Option<f64>) -> Option<f64> {
    let raw = |a: f64| {
        if a >= 100.0 {
            Some(100.0 / (a + 100.0))
        } else if a <= -100.0 {
            Some(-a / (-a + 100.0))
        } else {
            None
        }
    };
    let (p, n) = (raw(positive?)?, raw(negative?)?);
    Some(p / (p + n))
}

#[tokio::test]
async fn every_game_carries_every_models_used_key_null_where_empty_and_implied_from_current_prices() {
    // One game's AI cell emptied: the pipeline leaves it empty when the AI
    // model had no forecast for the game.
    let app = crate::helpers::spawn_app_with(crate::helpers::fixture_now(), crate::helpers::blank_first_ai_cell).await;
    let mut ring = KeyRing::new(&app);
    let (mut missing_ai, mut implied_values) = (0, 0);
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let rows = csv_rows(&app.store_dir.join(format!("predictions/{sport}/{model_type}.csv")));
            let (_, _, _, (neg_price, pos_price)) = fields(model_type);
            let (_, body) = ring
                .get_json(&format!("/api/v1/predictions/{sport}/{model_type}?upcoming_only=false"))
                .await;
            let used: BTreeSet<&str> = body["models_used"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            for game in body["games"].as_array().unwrap() {
                let row = row_for(&rows, game);
                let served = game["predictions"].as_object().unwrap();
                let keys: BTreeSet<&str> = served.keys().map(String::as_str).collect();
                assert_eq!(keys, used, "{sport}/{model_type}: same keys in every game: {game}");
                for column in &used {
                    if *column == "IMPLIED" {
                        continue;
                    }
                    assert_eq!(
                        served[*column].as_f64(),
                        number(&row[*column]),
                        "{sport}/{model_type} {column}: {game}"
                    );
                }
                let expected = no_vig(number(&row[pos_price]), number(&row[neg_price]));
                match (served["IMPLIED"].as_f64(), expected) {
                    (Some(got), Some(want)) => {
                        implied_values += 1;
                        assert!(
                            (got - want).abs() < 1e-6,
                            "{sport}/{model_type}: {got} vs {want}: {game}"
                        );
                    }
                    (None, None) => assert!(served["IMPLIED"].is_null()),
                    other => panic!("{sport}/{model_type} IMPLIED {other:?}: {game}"),
                }
                if row.get("AI").is_some_and(String::is_empty) {
                    missing_ai += 1;
                    assert!(served["AI"].is_null(), "{game}");
                }
            }
        }
    }
    assert!(missing_ai > 0, "the fixture has a row with an empty AI cell");
    assert!(implied_values > 0);
}

#[tokio::test]
async fn implied_is_null_when_one_current_price_is_missing() {
    // Blank the home price of the first nba moneyline game.
    let app = spawn_app_with(fixture_now(), |store| {
        let path = store.join("predictions/nba/won_on_points.csv");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let mut cells: Vec<String> = lines[1].split(',').map(str::to_owned).collect();
        cells[5] = String::new(); // home_money_line
        lines[1] = cells.join(",");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    })
    .await;
    let mut ring = KeyRing::new(&app);
    let (_, body) = ring
        .get_json("/api/v1/predictions/nba/won_on_points?upcoming_only=false")
        .await;
    let first = body["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["date"] == "2026-11-14" && g["home_team"] == "boston_celtics" && g["away_team"] == "brooklyn_nets")
        .unwrap();
    assert!(first["home_money_line"].is_null(), "{first}");
    assert!(first["predictions"].as_object().unwrap().contains_key("IMPLIED"));
    assert!(first["predictions"]["IMPLIED"].is_null(), "{first}");
}

#[tokio::test]
async fn line_fields_are_the_artifacts_and_placeholder_zero_openers_are_null() {
    let app = spawn_app().await;
    let mut ring = KeyRing::new(&app);
    let (mut zero_openers, mut real_openers) = (0, 0);
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let rows = csv_rows(&artifact(sport, model_type));
            let (lines, opens, _, _) = fields(model_type);
            let (_, body) = ring
                .get_json(&format!("/api/v1/predictions/{sport}/{model_type}?upcoming_only=false"))
                .await;
            for game in body["games"].as_array().unwrap() {
                let row = row_for(&rows, game);
                for field in lines {
                    assert_eq!(
                        game[*field].as_f64(),
                        number(&row[*field]),
                        "{sport}/{model_type} {field}: {game}"
                    );
                }
                for field in opens {
                    match number(&row[*field]) {
                        Some(0.0) => {
                            zero_openers += 1;
                            assert_eq!(game[*field], Value::Null, "{sport}/{model_type} {field}: {game}");
                        }
                        raw => {
                            real_openers += usize::from(raw.is_some());
                            assert_eq!(game[*field].as_f64(), raw, "{sport}/{model_type} {field}: {game}");
                        }
                    }
                }
            }
        }
    }
    assert!(
        zero_openers > 0 && real_openers > 0,
        "zero {zero_openers}, real {real_openers}"
    );
}

#[tokio::test]
async fn ev_is_blend_for_the_positive_side_and_one_minus_blend_for_the_negative() {
    let app = spawn_app().await;
    let mut ring = KeyRing::new(&app);
    // By hand: dallas_mavericks @ charlotte_hornets, BLEND 0.7546, home -388,
    // away +300. Home: 0.7546 x (1 + 100/388) - 1 = -5.09%.
    // Away: 0.2454 x 4.00 - 1 = -1.84%.
    let (_, body) = ring.get_json("/api/v1/predictions/nba/won_on_points").await;
    let game = body["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["home_team"] == "charlotte_hornets")
        .unwrap();
    assert_eq!(game["ev_home_ml"].as_f64(), Some(-5.09), "{game}");
    assert_eq!(game["ev_away_ml"].as_f64(), Some(-1.84), "{game}");

    let mut checked = 0;
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let rows = csv_rows(&artifact(sport, model_type));
            let (_, _, (ev_neg, ev_pos), (neg_price, pos_price)) = fields(model_type);
            let (_, body) = ring
                .get_json(&format!("/api/v1/predictions/{sport}/{model_type}?upcoming_only=false"))
                .await;
            for game in body["games"].as_array().unwrap() {
                let row = row_for(&rows, game);
                let blend: f64 = row["BLEND"].parse().unwrap();
                for (field, p, price) in [(ev_pos, blend, pos_price), (ev_neg, 1.0 - blend, neg_price)] {
                    let expected = number(&row[price]).and_then(decimal).map(|d| (p * d - 1.0) * 100.0);
                    match (expected, game[field].as_f64()) {
                        (Some(e), Some(got)) => {
                            assert!(
                                (e - got).abs() <= 0.005 + 1e-9,
                                "{sport}/{model_type} {field}: {got} vs {e}"
                            );
                            checked += 1;
                        }
                        (None, None) => {}
                        (e, got) => panic!("{sport}/{model_type} {field}: expected {e:?}, got {got:?} in {game}"),
                    }
                }
            }
        }
    }
    assert!(checked > 100, "checked {checked}");
}

#[tokio::test]
async fn a_late_game_keeps_its_et_date_after_utc_midnight() {
    // 23:30 ET on the fixture date is 04:30 UTC on the next day.
    let app = spawn_app_with(instant("2026-11-16T04:30:00Z"), |_| {}).await;
    let mut ring = KeyRing::new(&app);
    let (status, body) = ring.get_json("/api/v1/predictions/ncaab/won_on_points").await;
    assert_eq!(status, 200);
    let games = body["games"].as_array().unwrap();
    let late = games
        .iter()
        .find(|g| g["time"] == "23:30:00")
        .expect("the 23:30 ET game is still served");
    assert_eq!(late["date"], FIXTURE_TODAY);
    assert_eq!(
        games[0]["date"], FIXTURE_TODAY,
        "the slate is still the ET date, not the UTC one"
    );
}

#[tokio::test]
async fn yesterdays_slate_stays_visible_until_todays_run_completes() {
    let app = spawn_app_with(fixture_now(), |store| {
        edit_manifest(store, "nba", FIXTURE_TODAY, |m| m["run_completed_at"] = Value::Null);
    })
    .await;
    let mut ring = KeyRing::new(&app);
    let rows = csv_rows(&artifact("nba", "won_on_points"));
    let (status, body) = ring.get_json("/api/v1/predictions/nba/won_on_points").await;
    assert_eq!(status, 200);
    let dates: Vec<_> = body["games"].as_array().unwrap().iter().map(|g| key_of(g).0).collect();
    assert_eq!(dates.first().map(String::as_str), Some("2026-11-14"), "{dates:?}");
    assert_eq!(
        dates.len(),
        rows.iter().filter(|r| r["date"].as_str() >= "2026-11-14").count()
    );
}

#[tokio::test]
async fn an_off_day_serves_an_empty_slate_with_the_models_still_listed() {
    // mlb in November: the artifact holds only October games.
    let app = spawn_app().await;
    let mut ring = KeyRing::new(&app);
    for model_type in MODEL_TYPES {
        let (status, body) = ring.get_json(&format!("/api/v1/predictions/mlb/{model_type}")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["games"], Value::Array(vec![]), "{model_type}");
        assert!(body["models_used"].as_array().unwrap().iter().any(|m| m == "BLEND"));
    }
}

#[tokio::test]
async fn a_missing_artifact_is_a_404_in_the_error_shape() {
    let app = spawn_app_with(fixture_now(), |store| {
        std::fs::remove_file(store.join("predictions/nba/over_under.csv")).unwrap();
    })
    .await;
    let mut ring = KeyRing::new(&app);
    let (status, body) = ring.get_json("/api/v1/predictions/nba/over_under").await;
    let detail = assert_error_shape(status, &body, 404);
    assert_eq!(
        detail, "No nba predictions for over_under",
        "names the sport and model type, not the object key"
    );
    let (status, _) = ring.get_json("/api/v1/predictions/nba/won_on_points").await;
    assert_eq!(status, 200, "other model types are unaffected");
}

#[tokio::test]
async fn an_artifact_that_breaks_the_contract_is_a_503() {
    let app = spawn_app_with(fixture_now(), |store| {
        let path = store.join("predictions/nba/over_under.csv");
        std::fs::write(
            path,
            "date,time_est,away_team,home_team,BLEND\n2026-11-15,not-a-time,a,b,0.5\n",
        )
        .unwrap();
    })
    .await;
    let mut ring = KeyRing::new(&app);
    let (status, body) = ring.get_json("/api/v1/predictions/nba/over_under").await;
    let detail = assert_error_shape(status, &body, 503);
    assert!(
        !detail.contains("not-a-time"),
        "the cause is logged, not served: {detail}"
    );
}

#[tokio::test]
async fn an_unreadable_release_manifest_fails_only_the_slate_filtered_view() {
    let app = spawn_app_with(fixture_now(), |store| {
        std::fs::write(store.join(format!("releases/nfl/{FIXTURE_TODAY}.json")), b"{ not json").unwrap();
    })
    .await;
    let rows = csv_rows(&artifact("nfl", "over_under"));
    let (status, body) = app
        .get_authed_json("/api/v1/predictions/nfl/over_under?upcoming_only=false")
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["games"].as_array().unwrap().len(), rows.len());
    // Which slate is today's cannot be told: an error, never a guessed slate.
    let (status, body) = app.get_authed_json("/api/v1/predictions/nfl/over_under").await;
    assert_error_shape(status, &body, 503);
}

#[tokio::test]
async fn bad_sport_model_type_or_upcoming_only_are_400s_naming_the_parameter() {
    let app = spawn_app().await;
    let mut ring = KeyRing::new(&app);
    for (path, name, value) in [
        ("/api/v1/predictions/cricket/over_under", "sport", "cricket"),
        ("/api/v1/predictions/nba/moneyline", "model_type", "moneyline"),
        (
            "/api/v1/predictions/nba/over_under?upcoming_only=maybe",
            "upcoming_only",
            "maybe",
        ),
        ("/api/v1/predictions/NBA/over_under", "sport", "NBA"),
    ] {
        let (status, body) = ring.get_json(path).await;
        let detail = assert_error_shape(status, &body, 400);
        assert!(detail.contains(name) && detail.contains(value), "{path}: {detail}");
    }
}

#[tokio::test]
async fn predictions_odds_and_markets_require_a_key() {
    let app = spawn_app().await;
    for path in [
        "/api/v1/predictions/nba/over_under",
        "/api/v1/odds/nba",
        "/api/v1/markets/nba",
    ] {
        let (status, body) = app.get_json(path).await;
        let detail = assert_error_shape(status, &body, 401);
        assert_eq!(detail, "API key required", "{path}");
    }
}
