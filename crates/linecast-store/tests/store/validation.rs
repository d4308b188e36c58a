//! `validate` reports every problem with object, row and column.

use std::time::Duration;

use linecast_store::validate;

use crate::helpers::{SEASON, nba_store, put};

#[tokio::test]
async fn a_valid_store_has_no_problems() {
    let store = nba_store(Duration::from_secs(2)).await;
    let report = validate(&store).await;
    assert_eq!(report.problems, []);
    assert_eq!(report.objects_checked, 3);
}

#[tokio::test]
async fn linecast_s_own_archive_is_not_checked_against_the_contract() {
    let store = nba_store(Duration::from_secs(2)).await;
    put(&store.object_store(), "archive/nba/odds/00ff.csv", "kept by a server").await;
    let report = validate(&store).await;
    assert_eq!(report.problems, []);
    assert_eq!(report.objects_checked, 3);
}

#[tokio::test]
async fn planted_bad_rows_are_each_reported_with_object_row_and_column() {
    let store = nba_store(Duration::from_secs(2)).await;
    let raw = store.object_store();
    let bad = SEASON
        .replacen(",101,99,", ",101,ninety,", 1)
        .replacen(",0.4,0.5,", ",1.4,0.5,", 1);
    put(&raw, "seasons/nba/over_under/2025-26.csv", &bad).await;
    let report = validate(&store).await;
    let lines: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(
        lines[0].starts_with("seasons/nba/over_under/2025-26.csv row 1 column home_score: "),
        "{lines:#?}"
    );
    assert!(
        lines[1].starts_with("seasons/nba/over_under/2025-26.csv row 2 column BLEND: "),
        "{lines:#?}"
    );
}

#[tokio::test]
async fn cross_object_rules_are_checked() {
    let store = nba_store(Duration::from_secs(2)).await;
    let raw = store.object_store();
    put(
        &raw,
        "odds/mlb.csv",
        "match_id,date,time_est,away_team,home_team,last_updated\n",
    )
    .await;
    put(&raw, "README.md", "hello").await;
    put(&raw, "seasons/nba/won_on_points/2025.csv", "x").await;
    put(&raw, "releases/nba/2026-11-21.json", "{").await;
    put(
        &raw,
        "products/catalog.json",
        r#"{"products": [{"product_id": "p", "sport": "nba", "filename": "h.csv", "key": "datasets/nba/h.csv", "refreshable": true}]}"#,
    )
    .await;
    let odd_team = crate::helpers::SCORES.replace(
        "2025-11-22,19:30,2025-26,regular,new_york_knicks",
        "2025-11-22,19:30,2025-26,regular,brooklyn_nets",
    );
    put(&raw, "scores/nba.csv", &odd_team).await;

    let report = validate(&store).await;
    let lines: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    let has = |needle: &str| lines.iter().any(|l| l.contains(needle));
    assert!(has("teams/mlb.csv row 0 column *: missing"), "{lines:#?}");
    assert!(has("scores/mlb.csv row 0 column *: missing"), "{lines:#?}");
    assert!(
        has("README.md row 0 column *: not a key of the data contract"),
        "{lines:#?}"
    );
    assert!(
        has("seasons/nba/won_on_points/2025.csv row 0 column *: invalid season"),
        "{lines:#?}"
    );
    assert!(
        has("releases/nba/2026-11-21.json row 0 column *: invalid JSON"),
        "{lines:#?}"
    );
    assert!(
        has("products/catalog.json row 1 column key: product 'p' names missing object"),
        "{lines:#?}"
    );
    assert!(
        has("scores/nba.csv row 2 column away_team: team 'brooklyn_nets'"),
        "{lines:#?}"
    );
}

fn manifest_with_market(market: &str) -> String {
    format!(
        r#"{{"sport": "nba", "slate_date": "2026-11-21", "release_id": "r1",
  "run_started_at": "2026-11-21T13:00:00Z", "run_completed_at": "2026-11-21T13:40:00Z",
  "slate": "active", "source_as_of": "2026-11-21T12:55:00Z",
  "artifacts": {{"predictions": null, "results": null, "summaries": null, "model_tracking": null}},
  "markets": {{"won_on_points": {market}}}}}"#
    )
}

#[tokio::test]
async fn the_validator_checks_odds_pending_since_against_arrivals_and_rebuilds() {
    let store = nba_store(Duration::from_secs(2)).await;
    let raw = store.object_store();
    let market = |pending: &str| {
        format!(
            r#"{{"expected": true, "published_at": "2026-11-21T13:38:00Z", "release_id": "r1",
  "source_as_of": null, "held_games": [], "odds_arrived_at": "2026-11-21T17:00:00Z",
  "predictions_rebuilt_at": "2026-11-21T14:00:00Z"{pending}}}"#
        )
    };
    // Consistent: first unabsorbed arrival 15:00, after the 14:00 rebuild, before 17:00.
    put(
        &raw,
        "releases/nba/2026-11-21.json",
        &manifest_with_market(&market(r#", "odds_pending_since": "2026-11-21T15:00:00Z""#)),
    )
    .await;
    put(
        &raw,
        "releases/nba/2026-11-20.json",
        &manifest_with_market(&market(r#", "odds_pending_since": "2026-11-21T18:00:00Z""#))
            .replace("2026-11-21\", \"release_id", "2026-11-20\", \"release_id"),
    )
    .await;
    put(
        &raw,
        "releases/nba/2026-11-19.json",
        &manifest_with_market(&market(r#", "odds_pending_since": "2026-11-21T13:59:00Z""#))
            .replace("2026-11-21\", \"release_id", "2026-11-19\", \"release_id"),
    )
    .await;
    put(
        &raw,
        "releases/nba/2026-11-18.json",
        &manifest_with_market(&market("")).replace("2026-11-21\", \"release_id", "2026-11-18\", \"release_id"),
    )
    .await;
    let report = validate(&store).await;
    let lines: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    let about = |object: &str| {
        lines
            .iter()
            .filter(|l| l.starts_with(object) && l.contains("odds_pending_since"))
            .count()
    };
    assert_eq!(about("releases/nba/2026-11-21.json"), 0, "{lines:#?}");
    assert_eq!(
        about("releases/nba/2026-11-20.json"),
        1,
        "later than the latest arrival: {lines:#?}"
    );
    assert_eq!(
        about("releases/nba/2026-11-19.json"),
        1,
        "before the rebuild: {lines:#?}"
    );
    assert_eq!(
        about("releases/nba/2026-11-18.json"),
        1,
        "pending odds unnamed: {lines:#?}"
    );
}
