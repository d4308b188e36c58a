//! Cross-endpoint consistency over HTTP: summary, model tracking, team
//! form, rolling and density agree with an independent regrade of the rows
//! `/results` serves (SERVICE-SPEC "Grading rules", "Summary entry", "Team
//! form entry"; DESIGN "Grading", "Summary entry keys", "Model tracking").
//!
//! The regrade here reads only the served columns: a model with probability
//! above 0.5 picks the positive side, below 0.5 the negative side; only rows
//! with `graded: true` count; the outcome column says which side won.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Duration, NaiveDate};
use serde_json::{Value, json};

use crate::helpers::{assert_error_shape, fixture_now, spawn_app_with};
use crate::results::{
    MODEL_TYPES, SPORTS, Session, fetch_all, outcome_column, read_store_file, stamp_publication_times,
    stamped_publication, store_seasons,
};

/// Columns graded as models, in the order summaries list them.
const COLUMNS: [&str; 9] = ["IMPLIED", "AI", "BLEND", "CATB", "RF", "LGB", "LOGR", "XGB", "XT"];
/// The six individual models ENSEMBLE polls.
const INDIVIDUAL: [&str; 6] = ["CATB", "RF", "LGB", "LOGR", "XGB", "XT"];

/// One model's wins and losses, split by the side it picked.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    wins: usize,
    losses: usize,
    pos_wins: usize,
    pos_n: usize,
    neg_wins: usize,
    neg_n: usize,
}

impl Tally {
    fn n(&self) -> usize {
        self.wins + self.losses
    }

    fn add(&mut self, positive: bool, hit: bool) {
        if hit {
            self.wins += 1;
        } else {
            self.losses += 1;
        }
        if positive {
            self.pos_n += 1;
            self.pos_wins += usize::from(hit);
        } else {
            self.neg_n += 1;
            self.neg_wins += usize::from(hit);
        }
    }
}

/// `Some(true)` positive side, `Some(false)` negative side, `None` no pick.
fn side(p: f64) -> Option<bool> {
    if p > 0.5 {
        Some(true)
    } else if p < 0.5 {
        Some(false)
    } else {
        None
    }
}

/// Each model's pick (positive side or not) on one served row, ENSEMBLE included.
fn picks(row: &Value) -> Vec<(&'static str, bool)> {
    let mut out: Vec<(&'static str, bool)> = COLUMNS
        .iter()
        .filter_map(|c| row[*c].as_f64().and_then(side).map(|s| (*c, s)))
        .collect();
    let individual: Vec<bool> = INDIVIDUAL
        .iter()
        .filter_map(|c| row[*c].as_f64().and_then(side))
        .collect();
    let pos = individual.iter().filter(|s| **s).count();
    let neg = individual.len() - pos;
    if pos >= 5 {
        out.push(("ENSEMBLE", true));
    } else if neg >= 5 {
        out.push(("ENSEMBLE", false));
    }
    out
}

fn date_of(row: &Value) -> NaiveDate {
    NaiveDate::parse_from_str(row["date"].as_str().unwrap(), "%Y-%m-%d").unwrap()
}

/// Hits per graded row: (date, model, positive pick, hit).
fn graded_picks(rows: &[Value], model_type: &str) -> Vec<(NaiveDate, &'static str, bool, bool)> {
    let outcome = outcome_column(model_type);
    let mut out = Vec::new();
    for row in rows.iter().filter(|r| r["graded"] == true) {
        assert_eq!(row["push"], false, "a graded row is decided: {row}");
        let positive_won = row[outcome].as_u64().unwrap() == 1;
        for (model, positive) in picks(row) {
            out.push((date_of(row), model, positive, positive == positive_won));
        }
    }
    out
}

fn regrade(rows: &[Value], model_type: &str) -> BTreeMap<&'static str, Tally> {
    let mut tallies: BTreeMap<&'static str, Tally> = BTreeMap::new();
    for (_, model, positive, hit) in graded_picks(rows, model_type) {
        tallies.entry(model).or_default().add(positive, hit);
    }
    tallies
}

fn percent(num: usize, den: usize) -> Value {
    if den == 0 {
        Value::Null
    } else {
        json!(((num as f64 * 1000.0 / den as f64).round()) / 10.0)
    }
}

fn side_names(model_type: &str) -> (&'static str, &'static str) {
    if model_type == "over_under" {
        ("over", "under")
    } else {
        ("home", "away")
    }
}

/// The current season, fetched page by page (10 rows a page), oldest first.
async fn current_rows(s: &mut Session, sport: &str, model_type: &str) -> (Vec<Value>, Value) {
    let (mut rows, first) = fetch_all(s, &format!("/api/v1/results/{sport}/{model_type}"), None, 10).await;
    rows.reverse();
    (rows, first)
}

/// For every sport and model type, the summary's per-model wins, losses and
/// win rates equal a regrade of the current season's served rows; the models
/// listed are exactly those with a graded pick.
#[tokio::test]
async fn summaries_equal_a_regrade_of_the_current_season_results_for_every_sport_and_model_type() {
    let mut s = Session::start().await;
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let (rows, first) = current_rows(&mut s, sport, model_type).await;
            let expected = regrade(&rows, model_type);
            let body = s.ok(&format!("/api/v1/summary/{sport}/{model_type}")).await;
            let ctx = format!("{sport}/{model_type}");
            assert_eq!(body["sport"], sport);
            assert_eq!(body["model_type"], model_type);
            assert_eq!(
                body["season"], first["season"],
                "{ctx}: the summary covers the results' current season"
            );
            assert_eq!(body["generated_date"], first["last_updated"], "{ctx}");
            assert_grading_object(&body);
            let entries = body["summaries"].as_array().unwrap();
            let listed: BTreeSet<&str> = entries.iter().map(|e| e["model"].as_str().unwrap()).collect();
            let graded: BTreeSet<&str> = expected.iter().filter(|(_, t)| t.n() > 0).map(|(m, _)| *m).collect();
            assert_eq!(
                listed, graded,
                "{ctx}: a model is listed exactly when it has a graded pick"
            );
            let (pos, neg) = side_names(model_type);
            for entry in entries {
                let model = entry["model"].as_str().unwrap();
                let t = expected[model];
                let ctx = format!("{ctx} {model}: {entry}");
                assert_eq!(entry["wins"], t.wins, "{ctx}");
                assert_eq!(entry["losses"], t.losses, "{ctx}");
                assert_eq!(entry["total_games"], t.n(), "{ctx}");
                assert_eq!(entry["win %"], percent(t.wins, t.n()), "{ctx}");
                assert_eq!(entry["fade %"], percent(t.losses, t.n()), "{ctx}");
                assert_eq!(entry[format!("{pos} %")], percent(t.pos_wins, t.pos_n), "{ctx}");
                assert_eq!(entry[format!("{neg} %")], percent(t.neg_wins, t.neg_n), "{ctx}");
                assert_eq!(entry["ev roi season"], entry["ev roi"], "{ctx}");
                for key in [
                    "abstained",
                    "win % 1W",
                    "win % 4W",
                    "ev roi 1W",
                    "ev roi 4W",
                    "bt bets",
                    "bt wins",
                    "bt losses",
                    "bt units",
                ] {
                    assert!(entry.get(key).is_some(), "{ctx}: key {key}");
                }
                assert!(
                    entry.get(format!("{pos} % 1W")).is_some() && entry.get(format!("{neg} % 4W")).is_some(),
                    "{ctx}"
                );
            }
        }
    }
}

/// The 1W and 4W rates of the summary equal a regrade over the 7 and 28 days
/// ending on the latest decided game.
#[tokio::test]
async fn summary_windows_end_on_the_latest_decided_game() {
    let mut s = Session::start().await;
    for sport in ["nba", "mlb", "ncaaf"] {
        for model_type in MODEL_TYPES {
            let (rows, _) = current_rows(&mut s, sport, model_type).await;
            let end = rows.iter().filter(|r| r["push"] == false).map(date_of).max().unwrap();
            let body = s.ok(&format!("/api/v1/summary/{sport}/{model_type}")).await;
            for (days, suffix) in [(7, "1W"), (28, "4W")] {
                let start = end - Duration::days(days - 1);
                let window: Vec<Value> = rows
                    .iter()
                    .filter(|r| (start..=end).contains(&date_of(r)))
                    .cloned()
                    .collect();
                let t = regrade(&window, model_type);
                for entry in body["summaries"].as_array().unwrap() {
                    let model = entry["model"].as_str().unwrap();
                    let t = t.get(model).copied().unwrap_or_default();
                    assert_eq!(
                        entry[format!("win % {suffix}")],
                        percent(t.wins, t.n()),
                        "{sport}/{model_type} {model} {suffix}"
                    );
                }
            }
        }
    }
}

/// Tracking's `archive_games` equals the results `total` for every season;
/// its graded games, pushes, per-model season snapshot and provenance counts
/// equal a regrade of the same rows.
#[tokio::test]
async fn tracking_counts_equal_the_results_of_every_season() {
    let mut s = Session::start().await;
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let base = format!("/api/v1/results/{sport}/{model_type}");
            let mut seasons: Vec<Option<String>> = store_seasons(&s.app.store_dir, sport, model_type)
                .into_iter()
                .map(Some)
                .collect();
            seasons.push(None);
            for season in seasons {
                let (rows, first) = fetch_all(&mut s, &base, season.as_deref(), 100_000).await;
                let query = season.as_ref().map(|l| format!("?season={l}")).unwrap_or_default();
                let body = s
                    .ok(&format!("/api/v1/models/{sport}/{model_type}/tracking{query}"))
                    .await;
                let ctx = format!("{sport}/{model_type} {season:?}");
                assert_eq!(body["sport"], sport);
                assert_eq!(body["model"], model_type);
                assert_eq!(body["season"], first["season"], "{ctx}");
                assert_eq!(
                    body["archive_games"], first["total"],
                    "{ctx}: archive_games equals the results total"
                );
                assert_eq!(body["min_weekly_sample"], 10);
                let graded = rows.iter().filter(|r| r["graded"] == true).count();
                assert_eq!(body["total_games"], graded, "{ctx}: graded games");
                let pushes = rows.iter().filter(|r| r["push"] == true).count();
                assert_eq!(body["ungraded_pushes"], pushes, "{ctx}");
                let expected = regrade(&rows, model_type);
                let snapshot = body["snapshot"]["season"].as_object().unwrap();
                for (model, t) in expected.iter().filter(|(_, t)| t.n() > 0) {
                    assert_eq!(snapshot[*model]["n"], t.n(), "{ctx} {model}");
                    assert_eq!(snapshot[*model]["win_pct"], percent(t.wins, t.n()), "{ctx} {model}");
                }
                let models: BTreeSet<&str> = body["models"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m.as_str().unwrap())
                    .collect();
                let with_picks: BTreeSet<&str> = expected.iter().filter(|(_, t)| t.n() > 0).map(|(m, _)| *m).collect();
                assert_eq!(models, with_picks, "{ctx}");
                let mut provenance: BTreeMap<String, u64> = BTreeMap::new();
                for row in &rows {
                    let kind = row["model_probability_source"].as_str().unwrap_or("none").to_owned();
                    *provenance.entry(kind).or_default() += 1;
                }
                assert_eq!(body["provenance"], json!(provenance), "{ctx}");
            }
        }
    }
}

/// Team form equals a regrade of the current season's rows: each team's
/// result from its side of the market, pushes no result, oldest first.
#[tokio::test]
async fn team_form_equals_a_regrade_of_the_current_season_results() {
    let mut s = Session::start().await;
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let (rows, first) = current_rows(&mut s, sport, model_type).await;
            let outcome = outcome_column(model_type);
            let mut results: BTreeMap<String, Vec<u64>> = BTreeMap::new();
            for row in rows.iter().filter(|r| r["push"] == false) {
                let positive_won = row[outcome].as_u64().unwrap();
                let home = row["home_team"].as_str().unwrap().to_owned();
                let away = row["away_team"].as_str().unwrap().to_owned();
                let (home_result, away_result) = if model_type == "over_under" {
                    (positive_won, positive_won)
                } else {
                    (positive_won, 1 - positive_won)
                };
                results.entry(home).or_default().push(home_result);
                results.entry(away).or_default().push(away_result);
            }
            let tape = read_store_file(&s.app.store_dir.join(format!("scores/{sport}.csv")));
            let next_game = |team: &str| {
                tape.rows
                    .iter()
                    .filter(|g| {
                        g["date"].as_str() >= "2026-11-15"
                            && matches!(g["status"].as_str(), "scheduled" | "in_progress")
                    })
                    .filter(|g| g["home_team"] == team || g["away_team"] == team)
                    .map(|g| g["date"].clone())
                    .min()
            };
            let body = s.ok(&format!("/api/v1/results/{sport}/{model_type}/team-form")).await;
            let ctx = format!("{sport}/{model_type}");
            assert_eq!(body["current_season"], first["season"], "{ctx}");
            assert_eq!(body["last_n"], 10);
            assert_eq!(body["last_updated"], first["last_updated"], "{ctx}");
            let teams = body["teams"].as_array().unwrap();
            let served: BTreeSet<&str> = teams.iter().map(|t| t["team"].as_str().unwrap()).collect();
            assert_eq!(
                served,
                results.keys().map(String::as_str).collect(),
                "{ctx}: teams with a decided game"
            );
            for team in teams {
                let seq = &results[team["team"].as_str().unwrap()];
                let wins = seq.iter().sum::<u64>() as usize;
                let last = *seq.last().unwrap();
                let run = seq.iter().rev().take_while(|r| **r == last).count();
                let ctx = format!("{ctx}: {team}");
                assert_eq!(team["games"], seq.len(), "{ctx}");
                assert_eq!(team["wins"], wins, "{ctx}");
                assert_eq!(team["losses"], seq.len() - wins, "{ctx}");
                let pct = (wins as f64 / seq.len() as f64 * 1000.0).round() / 1000.0;
                assert!((team["win_pct"].as_f64().unwrap() - pct).abs() < 1e-9, "{ctx}");
                assert_eq!(team["last_10"], json!(seq[seq.len().saturating_sub(10)..]), "{ctx}");
                assert_eq!(
                    team["streak"],
                    format!("{}{run}", if last == 1 { 'W' } else { 'L' }),
                    "{ctx}"
                );
                assert_eq!(
                    team["next_game_date"],
                    json!(next_game(team["team"].as_str().unwrap())),
                    "{ctx}: from the score tape"
                );
            }
        }
    }
}

/// Rolling curves equal a trailing-28-day regrade of each season's served
/// rows, the historical average pools every season, and `last_updated` is the
/// newest season store's publication time.
#[tokio::test]
async fn rolling_curves_equal_a_regrade_of_every_archived_season() {
    let mut s = Session::over(spawn_app_with(fixture_now(), stamp_publication_times).await);
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let base = format!("/api/v1/results/{sport}/{model_type}");
            let body = s.ok(&format!("{base}/rolling")).await;
            let ctx = format!("{sport}/{model_type}");
            let labels = store_seasons(&s.app.store_dir, sport, model_type);
            let served: Vec<&str> = body["seasons"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["season"].as_str().unwrap())
                .collect();
            assert_eq!(served, labels, "{ctx}: one curve per archived season, oldest first");
            let mut pooled: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
            let mut newest_published = String::new();
            for (curve, label) in body["seasons"].as_array().unwrap().iter().zip(&labels) {
                let (rows, first) = fetch_all(&mut s, &base, Some(label), 100_000).await;
                newest_published = first["last_updated"].as_str().unwrap().to_owned();
                let picks = graded_picks(&rows, model_type);
                let dates: BTreeSet<NaiveDate> = picks.iter().map(|p| p.0).collect();
                let mut expected: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
                for date in &dates {
                    let start = *date - Duration::days(27);
                    let mut window: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
                    for (_, model, _, hit) in picks.iter().filter(|p| (start..=*date).contains(&p.0)) {
                        let w = window.entry(model).or_default();
                        w.0 += usize::from(*hit);
                        w.1 += 1;
                    }
                    for (model, (wins, n)) in window {
                        expected
                            .entry(model)
                            .or_default()
                            .push(json!({"date": date.to_string(), "win_pct": percent(wins, n), "n": n}));
                    }
                }
                for (_, model, _, hit) in &picks {
                    let p = pooled.entry(model).or_default();
                    p.0 += usize::from(*hit);
                    p.1 += 1;
                }
                let models = curve["models"].as_object().unwrap();
                let served_models: BTreeSet<&str> = models.keys().map(String::as_str).collect();
                assert_eq!(served_models, expected.keys().copied().collect(), "{ctx} {label}");
                for (model, points) in &expected {
                    assert_eq!(&models[*model], &json!(points), "{ctx} {label} {model}");
                }
            }
            let average = body["historical_average"].as_object().unwrap();
            assert_eq!(average.len(), pooled.len(), "{ctx}: {average:?}");
            for (model, (wins, n)) in pooled {
                assert_eq!(average[model], percent(wins, n), "{ctx} {model}");
            }
            assert_eq!(
                body["last_updated"].as_str(),
                Some(newest_published.as_str()),
                "{ctx}: newest season store's publication"
            );
            assert_eq!(body["last_updated"], stamped_publication(0), "{ctx}");
        }
    }
}

/// BLEND's bin: width 0.05, lower edges inclusive, 1.0 in the last bin.
fn bin_of(p: f64) -> usize {
    ((p * 20.0 + 1e-9).floor().max(0.0) as usize).min(19)
}

/// The density grid has the current season and up to ten before it, and each
/// cell counts the graded BLEND picks of `/results` in its bin.
#[tokio::test]
async fn density_cells_count_the_graded_blend_picks_of_each_season() {
    let mut s = Session::over(spawn_app_with(fixture_now(), stamp_publication_times).await);
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let base = format!("/api/v1/results/{sport}/{model_type}");
            let body = s.ok(&format!("{base}/density")).await;
            let list = s.ok(&format!("{base}/seasons")).await;
            let ctx = format!("{sport}/{model_type}");
            assert_eq!(body["current_season"], list["current_season"], "{ctx}");
            let x = body["x_labels"].as_array().unwrap();
            assert_eq!(
                (x.len(), x[0].as_str(), x[19].as_str()),
                (20, Some("0.00-0.05"), Some("0.95-1.00")),
                "{ctx}"
            );
            let current = list["current_season"].as_str().unwrap();
            let start_year = |l: &str| l[..4].parse::<i32>().unwrap();
            let mut expected_labels: Vec<String> = store_seasons(&s.app.store_dir, sport, model_type)
                .into_iter()
                .filter(|l| (start_year(current) - 10..=start_year(current)).contains(&start_year(l)))
                .collect();
            expected_labels.sort();
            assert_eq!(
                body["y_labels"],
                json!(expected_labels),
                "{ctx}: the current season and up to ten before"
            );
            assert!(expected_labels.len() <= 11);
            assert_eq!(
                body["last_updated"],
                s.ok(&format!("{base}?limit=1")).await["last_updated"],
                "{ctx}"
            );
            assert_eq!(body["last_updated"], stamped_publication(0), "{ctx}");
            for (label, cells) in expected_labels.iter().zip(body["cells"].as_array().unwrap()) {
                let (rows, _) = fetch_all(&mut s, &base, Some(label), 100_000).await;
                let mut counts = [(0usize, 0usize); 20];
                for row in rows.iter().filter(|r| r["graded"] == true) {
                    let Some(p) = row["BLEND"].as_f64() else { continue };
                    let Some(positive) = side(p) else { continue };
                    let cell = &mut counts[bin_of(p)];
                    cell.0 += 1;
                    cell.1 += usize::from(positive == (row[outcome_column(model_type)] == 1));
                }
                let expected: Vec<Value> = counts
                    .iter()
                    .map(|&(n, hits)| {
                        let rate = if n == 0 {
                            Value::Null
                        } else {
                            json!((hits as f64 / n as f64 * 10_000.0).round() / 10_000.0)
                        };
                        json!({"n": n, "hit_rate": rate})
                    })
                    .collect();
                assert_eq!(cells, &json!(expected), "{ctx} {label}");
            }
        }
    }
}

/// The served outcome column, `push` and IMPLIED follow from the scores and
/// the recorded lines and prices, whatever the store says.
#[tokio::test]
#[expect(
    clippy::float_cmp,
    reason = "scores and lines are whole or half numbers: a push is exact equality"
)]
async fn served_outcomes_pushes_and_implied_are_recomputed_from_scores_and_prices() {
    fn implied(american: f64) -> f64 {
        if american < 0.0 {
            -american / (-american + 100.0)
        } else {
            100.0 / (american + 100.0)
        }
    }
    let mut s = Session::start().await;
    let (mut pushes, mut checked) = (0, 0);
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            for season in store_seasons(&s.app.store_dir, sport, model_type) {
                let (rows, _) = fetch_all(
                    &mut s,
                    &format!("/api/v1/results/{sport}/{model_type}"),
                    Some(&season),
                    100_000,
                )
                .await;
                for row in rows.iter().filter(|r| !r["push"].is_null()) {
                    let (home, away) = (row["home_score"].as_f64().unwrap(), row["away_score"].as_f64().unwrap());
                    let (margin, on_line) = match model_type {
                        "over_under" => {
                            let line = row["over_under"].as_f64().unwrap();
                            (home + away - line, home + away == line)
                        }
                        "won_on_points" => (home - away, home == away),
                        _ => {
                            let spread = row["home_point_spread"].as_f64().unwrap();
                            (home + spread - away, home + spread == away)
                        }
                    };
                    assert_eq!(row["push"], on_line, "{row}");
                    assert_eq!(row[outcome_column(model_type)], u64::from(margin > 0.0), "{row}");
                    pushes += usize::from(on_line);
                    checked += 1;
                }
                for row in &rows {
                    let (pos, neg) = match model_type {
                        "over_under" => ("over_line", "under_line"),
                        "won_on_points" => ("home_money_line", "away_money_line"),
                        _ => ("home_point_spread_line", "away_point_spread_line"),
                    };
                    match (row[pos].as_f64(), row[neg].as_f64()) {
                        (Some(a), Some(b)) => {
                            let expected = implied(a) / (implied(a) + implied(b));
                            assert!((row["IMPLIED"].as_f64().unwrap() - expected).abs() < 1e-6, "{row}");
                        }
                        _ => assert!(row["IMPLIED"].is_null(), "one-sided prices give no IMPLIED: {row}"),
                    }
                }
            }
        }
    }
    assert!(
        pushes > 0 && checked > 1000,
        "the fixture exercises pushes ({pushes}) and many decided games ({checked})"
    );
}

#[tokio::test]
async fn tracking_validates_its_season_and_answers_404_without_a_store() {
    let mut s = Session::start().await;
    for (path, status) in [
        ("/api/v1/models/nba/won_on_points/tracking?season=2025", 400),
        ("/api/v1/models/mlb/won_on_points/tracking?season=2025-26", 400),
        ("/api/v1/models/nba/won_on_points/tracking?season=2019-20", 404),
        ("/api/v1/models/nba/spread/tracking", 400),
    ] {
        let (got, body) = s.json(path).await;
        assert_error_shape(got, &body, status);
    }
}

/// `grading` is an object of rule name → sentence, so clients can iterate it.
fn assert_grading_object(body: &Value) {
    let grading = body["grading"]
        .as_object()
        .unwrap_or_else(|| panic!("grading is an object: {}", body["grading"]));
    for rule in ["pick", "push", "windows", "ev_roi"] {
        assert!(grading.contains_key(rule), "{rule} in {grading:?}");
    }
    assert!(
        grading.values().all(|v| v.as_str().is_some_and(|s| !s.is_empty())),
        "{grading:?}"
    );
}

#[tokio::test]
async fn summary_and_tracking_serve_the_same_grading_object() {
    let mut s = Session::start().await;
    let summary = s.ok("/api/v1/summary/nba/won_on_points").await;
    let tracking = s.ok("/api/v1/models/nba/won_on_points/tracking").await;
    assert_grading_object(&summary);
    assert_grading_object(&tracking);
    assert_eq!(summary["grading"], tracking["grading"]);
}
