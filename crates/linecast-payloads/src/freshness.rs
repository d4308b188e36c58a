//! The JSON shape of data status (`/data-status/{sport}`): codes and
//! timestamps of the freshness report. The states and their rules belong to
//! `linecast-freshness`; this module only writes them.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use linecast_freshness::{FreshnessReport, MarketReport};
use serde::Serialize;
use utoipa::ToSchema;

use crate::time::rfc3339;

fn ts(t: Option<DateTime<Utc>>) -> Option<String> {
    t.map(rfc3339)
}

fn code<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// One market (model type) of the status.
#[derive(Debug, Serialize, ToSchema)]
pub struct MarketStatus {
    /// pending, updating, fresh, off_day, partial, stale or unknown.
    pub status: String,
    /// When the market's predictions were published (artifact time).
    #[schema(format = DateTime)]
    pub published_at: Option<String>,
    pub release_id: Option<String>,
    /// As-of time of the source data the release used.
    #[schema(format = DateTime)]
    pub source_as_of: Option<String>,
    /// Newer odds arrived and the rebuild has not landed yet.
    pub refresh_pending: bool,
    /// One odds cycle after the newer odds arrived.
    #[schema(format = DateTime)]
    pub refresh_deadline: Option<String>,
    /// Games whose previous prediction is kept; they never change status.
    pub held_games: Vec<String>,
}

/// Publication times of the day's derived artifacts.
#[derive(Debug, Serialize, ToSchema)]
pub struct ArtifactStatus {
    #[schema(format = DateTime)]
    pub predictions: Option<String>,
    #[schema(format = DateTime)]
    pub results: Option<String>,
    #[schema(format = DateTime)]
    pub summaries: Option<String>,
    #[schema(format = DateTime)]
    pub model_tracking: Option<String>,
}

/// The data-status payload. No field is the response time.
#[derive(Debug, Serialize, ToSchema)]
pub struct DataStatusResponse {
    pub sport: String,
    /// Today's ET slate date.
    #[schema(format = Date)]
    pub slate_date: String,
    /// pending, updating, fresh, off_day, partial, stale or unknown.
    pub status: String,
    /// True while today's slate is being served.
    pub operational: bool,
    /// source_stale, predictions_stale, results_awaiting_settlement, daily_output_stale, release_missing or release_unavailable.
    pub degradation_reason: Option<String>,
    pub refresh_pending: bool,
    /// 10:15 America/New_York on the slate date.
    #[schema(format = DateTime)]
    pub deadline: String,
    pub release_id: Option<String>,
    #[schema(format = DateTime)]
    pub source_as_of: Option<String>,
    /// Keyed by model type.
    pub markets: BTreeMap<String, MarketStatus>,
    pub artifacts: ArtifactStatus,
}

fn market(m: &MarketReport) -> MarketStatus {
    MarketStatus {
        status: code(&m.status),
        published_at: ts(m.published_at),
        release_id: m.release_id.clone(),
        source_as_of: ts(m.source_as_of),
        refresh_pending: m.refresh_pending,
        refresh_deadline: ts(m.refresh_deadline),
        held_games: m.held_games.clone(),
    }
}

impl From<&FreshnessReport> for DataStatusResponse {
    fn from(r: &FreshnessReport) -> Self {
        Self {
            sport: r.sport.code().to_owned(),
            slate_date: r.slate_date.format("%Y-%m-%d").to_string(),
            status: code(&r.status),
            operational: r.operational,
            degradation_reason: r.degradation_reason.as_ref().map(code),
            refresh_pending: r.refresh_pending,
            deadline: rfc3339(r.deadline),
            release_id: r.release_id.clone(),
            source_as_of: ts(r.source_as_of),
            markets: r
                .markets
                .iter()
                .map(|(k, v)| (k.code().to_owned(), market(v)))
                .collect(),
            artifacts: ArtifactStatus {
                predictions: ts(r.artifacts.predictions),
                results: ts(r.artifacts.results),
                summaries: ts(r.artifacts.summaries),
                model_tracking: ts(r.artifacts.model_tracking),
            },
        }
    }
}
