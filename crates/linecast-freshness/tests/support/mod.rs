//! Builders for manifests and inputs on fixed instants. The default day is
//! 2026-11-21 (EST, deadline 15:15Z); the run starts 13:02Z and completes
//! 13:40Z, well before the deadline.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::artifacts::{ReleaseArtifacts, ReleaseManifest, ReleaseMarket, SlateKind};
use linecast_domain::{ModelType, Sport};
use linecast_freshness::{ArtifactMetadata, FreshnessInputs, StorageFailure};

pub fn utc(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

pub fn date(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

pub const DAY: &str = "2026-11-21";
pub const BEFORE_DEADLINE: &str = "2026-11-21T14:00:07Z";
pub const AFTER_DEADLINE: &str = "2026-11-21T15:30:07Z";

pub fn published_market(at: &str) -> ReleaseMarket {
    ReleaseMarket {
        expected: true,
        published_at: Some(utc(at)),
        release_id: Some("nba-2026-11-21-r1".into()),
        source_as_of: Some(utc("2026-11-21T12:55:00Z")),
        held_games: Vec::new(),
        odds_arrived_at: None,
        predictions_rebuilt_at: None,
        odds_pending_since: None,
    }
}

pub fn unpublished_market() -> ReleaseMarket {
    ReleaseMarket {
        published_at: None,
        ..published_market("2026-11-21T13:38:00Z")
    }
}

/// A completed active-slate release with every market and artifact published.
pub fn complete_manifest() -> ReleaseManifest {
    let markets: BTreeMap<ModelType, ReleaseMarket> = ModelType::ALL
        .iter()
        .map(|mt| (*mt, published_market("2026-11-21T13:38:00Z")))
        .collect();
    ReleaseManifest {
        sport: Sport::Nba,
        slate_date: date(DAY),
        release_id: "nba-2026-11-21-r1".into(),
        run_started_at: Some(utc("2026-11-21T13:02:00Z")),
        run_completed_at: Some(utc("2026-11-21T13:40:00Z")),
        slate: SlateKind::Active,
        source_as_of: Some(utc("2026-11-21T12:55:00Z")),
        artifacts: ReleaseArtifacts {
            predictions: Some(utc("2026-11-21T13:38:00Z")),
            results: Some(utc("2026-11-21T13:39:00Z")),
            summaries: Some(utc("2026-11-21T13:40:00Z")),
            model_tracking: Some(utc("2026-11-21T13:40:00Z")),
        },
        markets,
    }
}

/// A run that has started and published nothing yet.
pub fn started_manifest() -> ReleaseManifest {
    ReleaseManifest {
        run_completed_at: None,
        artifacts: ReleaseArtifacts::default(),
        markets: ModelType::ALL.iter().map(|mt| (*mt, unpublished_market())).collect(),
        ..complete_manifest()
    }
}

/// Yesterday's completed release, the one served until today's replaces it.
pub fn previous_manifest() -> ReleaseManifest {
    let markets = ModelType::ALL
        .iter()
        .map(|mt| {
            (
                *mt,
                ReleaseMarket {
                    release_id: Some("nba-2026-11-20-r1".into()),
                    source_as_of: Some(utc("2026-11-20T12:50:00Z")),
                    held_games: vec!["2026-11-20 19:30:00 boston_celtics@new_york_knicks".into()],
                    ..published_market("2026-11-20T13:30:00Z")
                },
            )
        })
        .collect();
    ReleaseManifest {
        slate_date: date("2026-11-20"),
        release_id: "nba-2026-11-20-r1".into(),
        run_started_at: Some(utc("2026-11-20T13:00:00Z")),
        run_completed_at: Some(utc("2026-11-20T13:35:00Z")),
        source_as_of: Some(utc("2026-11-20T12:50:00Z")),
        artifacts: ReleaseArtifacts {
            predictions: Some(utc("2026-11-20T13:30:00Z")),
            results: Some(utc("2026-11-20T13:31:00Z")),
            summaries: Some(utc("2026-11-20T13:32:00Z")),
            model_tracking: Some(utc("2026-11-20T13:33:00Z")),
        },
        markets,
        ..complete_manifest()
    }
}

pub fn inputs(today: Option<ReleaseManifest>) -> FreshnessInputs {
    FreshnessInputs {
        sport: Sport::Nba,
        slate_date: date(DAY),
        today: Ok(today),
        previous: Some(previous_manifest()),
        expected_markets: ModelType::ALL.to_vec(),
        artifacts: ArtifactMetadata::default(),
    }
}

pub fn storage_failure() -> FreshnessInputs {
    FreshnessInputs {
        today: Err(StorageFailure {
            reason: "connection reset".into(),
        }),
        ..inputs(None)
    }
}
