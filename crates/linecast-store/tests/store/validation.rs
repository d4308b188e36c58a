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
