//! Parse once per object version; no I/O within the version TTL.

use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDate;
use linecast_core::ArtifactStore;
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_store::ObjectArtifactStore;

use crate::helpers::{Instrumented, SEASON, TEAMS, options, put};

fn nba_2025() -> SeasonLabel {
    SeasonLabel::parse(Sport::Nba, "2025-26").unwrap()
}

#[tokio::test]
async fn repeated_reads_within_the_ttl_do_no_io_and_parse_once() {
    let raw = Instrumented::new();
    let store = ObjectArtifactStore::new(raw.clone(), options(Duration::from_mins(1)));
    put(&store.object_store(), "teams/nba.csv", TEAMS).await;
    let first = store.teams(Sport::Nba).await.unwrap();
    let requests = raw.requests();
    assert_eq!(requests, 2, "one HEAD and one GET");
    for _ in 0..10 {
        let again = store.teams(Sport::Nba).await.unwrap();
        assert!(Arc::ptr_eq(&first.value, &again.value));
    }
    assert_eq!(raw.requests(), requests);
    assert_eq!(store.parse_count(), 1);
}

#[tokio::test]
async fn after_the_ttl_an_unchanged_object_costs_one_head_and_no_parse() {
    let raw = Instrumented::new();
    let store = ObjectArtifactStore::new(raw.clone(), options(Duration::from_millis(50)));
    put(&store.object_store(), "teams/nba.csv", TEAMS).await;
    store.teams(Sport::Nba).await.unwrap();
    tokio::time::sleep(Duration::from_millis(120)).await;
    let before = raw.requests();
    store.teams(Sport::Nba).await.unwrap();
    assert_eq!(raw.requests(), before + 1, "only a HEAD");
    assert_eq!(store.parse_count(), 1);
}

#[tokio::test]
async fn a_new_put_is_seen_after_the_ttl_and_parsed_once() {
    let store = ObjectArtifactStore::from_url("memory://", options(Duration::from_millis(50))).unwrap();
    let raw = store.object_store();
    put(&raw, "teams/nba.csv", TEAMS).await;
    let v1 = store.teams(Sport::Nba).await.unwrap();
    assert_eq!(v1.value.teams.len(), 2);

    let one_row = TEAMS.lines().take(2).collect::<Vec<_>>().join("\n") + "\n";
    put(&raw, "teams/nba.csv", &one_row).await;
    let within_ttl = store.teams(Sport::Nba).await.unwrap();
    assert_eq!(
        within_ttl.version, v1.version,
        "the seen version is trusted for the TTL"
    );

    tokio::time::sleep(Duration::from_millis(120)).await;
    let v2 = store.teams(Sport::Nba).await.unwrap();
    assert_ne!(v2.version.version, v1.version.version);
    assert_eq!(v2.value.teams.len(), 1);
    assert_eq!(store.parse_count(), 2);
    let v2_again = store.teams(Sport::Nba).await.unwrap();
    assert!(Arc::ptr_eq(&v2.value, &v2_again.value));
    assert_eq!(store.parse_count(), 2);
}

#[tokio::test]
async fn concurrent_first_reads_share_one_parse() {
    let store = Arc::new(ObjectArtifactStore::from_url("memory://", options(Duration::from_mins(1))).unwrap());
    put(&store.object_store(), "teams/nba.csv", TEAMS).await;
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.teams(Sport::Nba).await.unwrap() })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(store.parse_count(), 1);
}

#[tokio::test]
async fn a_season_store_is_handed_over_not_kept_and_its_version_alone_costs_no_get() {
    let raw = Instrumented::new();
    let store = ObjectArtifactStore::new(raw.clone(), options(Duration::from_mins(1)));
    put(&store.object_store(), "seasons/nba/over_under/2025-26.csv", SEASON).await;
    let first = store
        .season(Sport::Nba, ModelType::OverUnder, nba_2025())
        .await
        .unwrap();
    assert!(first.heap_bytes.is_some_and(|b| b > 0), "what was parsed is weighed");
    let before = raw.requests();
    let version = store
        .season_version(Sport::Nba, ModelType::OverUnder, nba_2025())
        .await
        .unwrap();
    assert_eq!(version, first.version);
    assert_eq!(raw.requests(), before, "a known version costs no I/O within the TTL");
    // The graded-season cache keeps seasons: the store parses one again.
    let again = store
        .season(Sport::Nba, ModelType::OverUnder, nba_2025())
        .await
        .unwrap();
    assert!(!Arc::ptr_eq(&first.value, &again.value));
    assert_eq!(raw.requests(), before + 1, "one GET");
    assert_eq!(store.parse_count(), 2);
    assert_eq!(store.cache_stats().entries, 0);
}

#[tokio::test]
async fn listings_are_sorted_newest_first_and_cached_for_the_ttl() {
    let store = ObjectArtifactStore::from_url("memory://", options(Duration::from_millis(50))).unwrap();
    let raw = store.object_store();
    for key in [
        "seasons/nba/over_under/2024-25.csv",
        "seasons/nba/over_under/2025-26.csv",
        "seasons/nba/over_under/notes.txt",
        "releases/nba/2026-11-20.json",
        "releases/nba/2026-11-21.json",
    ] {
        put(&raw, key, "x").await;
    }
    let seasons = store.seasons(Sport::Nba, ModelType::OverUnder).await.unwrap();
    let labels: Vec<String> = seasons.iter().map(ToString::to_string).collect();
    assert_eq!(labels, ["2025-26", "2024-25"]);
    let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
    assert_eq!(
        store.release_dates(Sport::Nba).await.unwrap(),
        [d("2026-11-21"), d("2026-11-20")]
    );

    put(&raw, "releases/nba/2026-11-22.json", "x").await;
    assert_eq!(
        store.release_dates(Sport::Nba).await.unwrap().len(),
        2,
        "listing trusted within the TTL"
    );
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(store.release_dates(Sport::Nba).await.unwrap()[0], d("2026-11-22"));
}
