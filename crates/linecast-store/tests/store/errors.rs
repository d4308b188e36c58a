//! NotFound versus Unavailable, and no empty data on failure.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use linecast_core::{ArtifactStore, StoreError};
use linecast_domain::{ModelType, Sport};
use linecast_store::ObjectArtifactStore;

use crate::helpers::{Instrumented, TEAMS, nba_store, options, put};

#[tokio::test]
async fn a_missing_object_is_not_found_and_names_the_key() {
    let store = nba_store(Duration::from_secs(2)).await;
    let err = store.odds(Sport::Nba).await.unwrap_err();
    assert_eq!(
        err,
        StoreError::NotFound {
            object: "odds/nba.csv".to_owned()
        }
    );
}

#[tokio::test]
async fn a_failing_backend_is_unavailable_for_reads_listings_and_ping() {
    let raw = Instrumented::new();
    let store = ObjectArtifactStore::new(raw.clone(), options(Duration::from_millis(1)));
    put(&store.object_store(), "teams/nba.csv", TEAMS).await;
    raw.failing.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(matches!(
        store.teams(Sport::Nba).await,
        Err(StoreError::Unavailable { .. })
    ));
    assert!(matches!(
        store.seasons(Sport::Nba, ModelType::OverUnder).await,
        Err(StoreError::Unavailable { .. })
    ));
    assert!(matches!(
        store.release_dates(Sport::Nba).await,
        Err(StoreError::Unavailable { .. })
    ));
    assert!(matches!(
        store.dataset_bytes("datasets/nba/x.csv").await,
        Err(StoreError::Unavailable { .. })
    ));
    assert!(matches!(store.ping().await, Err(StoreError::Unavailable { .. })));

    raw.failing.store(false, Ordering::SeqCst);
    assert!(store.ping().await.is_ok());
    assert_eq!(
        store.teams(Sport::Nba).await.unwrap().value.teams.len(),
        2,
        "an outage is not remembered"
    );
}

#[tokio::test]
async fn a_corrupt_object_is_an_error_every_time_not_empty_data() {
    let store = nba_store(Duration::from_secs(2)).await;
    put(&store.object_store(), "teams/nhl.csv", "slug,display_name\nx,X\n").await;
    for _ in 0..2 {
        let err = store.teams(Sport::Nhl).await.unwrap_err();
        assert!(
            matches!(err, StoreError::Corrupt { ref object, row: 0, .. } if object == "teams/nhl.csv"),
            "{err:?}"
        );
    }
    assert_eq!(store.parse_count(), 1, "a corrupt version is parsed once too");
}

#[tokio::test]
async fn file_urls_read_the_directory_and_report_missing_files_as_not_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("teams")).unwrap();
    std::fs::write(dir.path().join("teams/nba.csv"), TEAMS).unwrap();
    let url = format!("file://{}", dir.path().display());
    let store = ObjectArtifactStore::from_url(&url, options(Duration::from_secs(2))).unwrap();
    assert_eq!(store.teams(Sport::Nba).await.unwrap().value.teams.len(), 2);
    assert!(matches!(
        store.teams(Sport::Mlb).await,
        Err(StoreError::NotFound { .. })
    ));
    assert_eq!(store.seasons(Sport::Nba, ModelType::OverUnder).await.unwrap(), []);
    assert!(store.ping().await.is_ok());
    let version = store.teams(Sport::Nba).await.unwrap().version;
    assert_eq!(version.key, "teams/nba.csv");
    assert_eq!(version.size, TEAMS.len() as u64);
    assert!(!version.version.is_empty());
}

#[tokio::test]
async fn memory_urls_with_a_path_scope_keys_under_that_prefix() {
    let store = ObjectArtifactStore::from_url("memory:///data/v1", options(Duration::from_secs(2))).unwrap();
    put(&store.object_store(), "teams/nba.csv", TEAMS).await;
    assert_eq!(store.teams(Sport::Nba).await.unwrap().version.key, "teams/nba.csv");
    assert!(Arc::strong_count(&store.object_store()) >= 1);
}

#[tokio::test]
async fn a_line_no_book_could_quote_is_an_error_naming_the_object_row_and_column() {
    let store = nba_store(Duration::from_secs(2)).await;
    let raw = store.object_store();
    // Row 2 carries a puck line of -0.5: the NHL spread is fixed at ±1.5.
    put(
        &raw,
        "predictions/nhl/won_on_spread.csv",
        "date,time_est,away_team,home_team,away_point_spread,home_point_spread,away_point_spread_line,home_point_spread_line,BLEND\n\
2025-11-20,19:00:00,a,b,1.5,-1.5,-180,155,0.41\n\
2025-11-20,19:30:00,c,d,0.5,-0.5,-110,-110,0.52\n",
    )
    .await;
    let err = store.predictions(Sport::Nhl, ModelType::WonOnSpread).await.unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt { ref object, row: 2, ref column, .. }
            if object == "predictions/nhl/won_on_spread.csv" && column == "away_point_spread"),
        "{err:?}"
    );
    // Row 1 of the odds prices the home side at +50: no American price lies
    // strictly between -100 and +100.
    put(
        &raw,
        "odds/nba.csv",
        "match_id,date,time_est,away_team,home_team,away_money_line,home_money_line,last_updated\n\
m1,2025-11-20,19:30:00,boston_celtics,new_york_knicks,-120,50,2025-11-20 12:00:00\n",
    )
    .await;
    let err = store.odds(Sport::Nba).await.unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt { ref object, row: 1, ref column, .. }
            if object == "odds/nba.csv" && column == "home_money_line"),
        "{err:?}"
    );
    // The same lines in a league whose spread moves, and a placeholder zero
    // opener, are quotable.
    put(
        &raw,
        "predictions/nba/won_on_spread.csv",
        "date,time_est,away_team,home_team,away_point_spread,home_point_spread,away_point_spread_line,home_point_spread_line,open_away_point_spread,open_home_point_spread,BLEND\n\
2025-11-20,19:30:00,boston_celtics,new_york_knicks,0.5,-0.5,-110,-110,0,0,0.52\n",
    )
    .await;
    let table = store.predictions(Sport::Nba, ModelType::WonOnSpread).await.unwrap();
    assert_eq!(table.value.rows.len(), 1);
}
