//! The data-status payload (DESIGN "Data status"). Every timestamp in it is an
//! artifact timestamp or derives from the slate date; none is the time of
//! the evaluation.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::{ModelType, Sport};
use serde::Serialize;

/// Freshness status of a sport or of one market (spec "Data-freshness status").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pending,
    Updating,
    Fresh,
    OffDay,
    Partial,
    Stale,
    Unknown,
}

impl Status {
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Updating => "updating",
            Status::Fresh => "fresh",
            Status::OffDay => "off_day",
            Status::Partial => "partial",
            Status::Stale => "stale",
            Status::Unknown => "unknown",
        }
    }
}

/// Why a sport is degraded. The crate docs ("DECISIONS") say when each applies
/// and which wins when several do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DegradationReason {
    SourceStale,
    PredictionsStale,
    ResultsAwaitingSettlement,
    DailyOutputStale,
    ReleaseMissing,
    ReleaseUnavailable,
}

impl DegradationReason {
    pub const fn as_str(self) -> &'static str {
        match self {
            DegradationReason::SourceStale => "source_stale",
            DegradationReason::PredictionsStale => "predictions_stale",
            DegradationReason::ResultsAwaitingSettlement => "results_awaiting_settlement",
            DegradationReason::DailyOutputStale => "daily_output_stale",
            DegradationReason::ReleaseMissing => "release_missing",
            DegradationReason::ReleaseUnavailable => "release_unavailable",
        }
    }
}

/// Whether today's slate is being served, from the status and the reason
/// alone. The spec's one exception: a late intraday rebuild
/// (`stale` + `predictions_stale`) still serves the day's slate.
pub const fn is_operational(status: Status, reason: Option<DegradationReason>) -> bool {
    match status {
        Status::Pending | Status::Updating | Status::Fresh | Status::OffDay => true,
        Status::Stale => matches!(reason, Some(DegradationReason::PredictionsStale)),
        Status::Partial | Status::Unknown => false,
    }
}

/// Publication times of the day's derived artifacts, as served.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ArtifactTimes {
    pub predictions: Option<DateTime<Utc>>,
    pub results: Option<DateTime<Utc>>,
    pub summaries: Option<DateTime<Utc>>,
    pub model_tracking: Option<DateTime<Utc>>,
}

/// `markets.{model_type}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MarketReport {
    pub status: Status,
    /// When the served predictions of this market were published.
    pub published_at: Option<DateTime<Utc>>,
    pub release_id: Option<String>,
    pub source_as_of: Option<DateTime<Utc>>,
    /// Newer odds arrived after the last prediction rebuild.
    pub refresh_pending: bool,
    /// One odds cycle after those odds arrived; set only while pending.
    pub refresh_deadline: Option<DateTime<Utc>>,
    /// Games whose previous prediction is kept. Listed only: they never
    /// change any status.
    pub held_games: Vec<String>,
}

/// The data-status report of one sport for one slate date.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FreshnessReport {
    pub sport: Sport,
    pub slate_date: NaiveDate,
    pub status: Status,
    pub operational: bool,
    pub degradation_reason: Option<DegradationReason>,
    pub refresh_pending: bool,
    /// 10:15 America/New_York on `slate_date`.
    pub deadline: DateTime<Utc>,
    pub release_id: Option<String>,
    pub source_as_of: Option<DateTime<Utc>>,
    pub markets: BTreeMap<ModelType, MarketReport>,
    pub artifacts: ArtifactTimes,
}

impl FreshnessReport {
    /// Every timestamp the report carries, for checks that none is `now`.
    pub fn timestamps(&self) -> Vec<DateTime<Utc>> {
        let a = &self.artifacts;
        let mut all: Vec<DateTime<Utc>> = [Some(self.deadline), self.source_as_of]
            .into_iter()
            .chain([a.predictions, a.results, a.summaries, a.model_tracking])
            .flatten()
            .collect();
        for m in self.markets.values() {
            all.extend(
                [m.published_at, m.source_as_of, m.refresh_deadline]
                    .into_iter()
                    .flatten(),
            );
        }
        all
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn statuses_read_as_the_codes_docs_payloads_lists() {
        // docs/payloads.md, data-status `status`.
        let codes: Vec<&str> = [
            Status::Pending,
            Status::Updating,
            Status::Fresh,
            Status::OffDay,
            Status::Partial,
            Status::Stale,
            Status::Unknown,
        ]
        .into_iter()
        .map(Status::as_str)
        .collect();
        assert_eq!(
            codes,
            ["pending", "updating", "fresh", "off_day", "partial", "stale", "unknown"]
        );
    }

    #[test]
    fn degradation_reasons_read_as_the_codes_docs_payloads_lists() {
        // docs/payloads.md, data-status `degradation_reason`.
        let codes: Vec<&str> = [
            DegradationReason::SourceStale,
            DegradationReason::PredictionsStale,
            DegradationReason::ResultsAwaitingSettlement,
            DegradationReason::DailyOutputStale,
            DegradationReason::ReleaseMissing,
            DegradationReason::ReleaseUnavailable,
        ]
        .into_iter()
        .map(DegradationReason::as_str)
        .collect();
        assert_eq!(
            codes,
            [
                "source_stale",
                "predictions_stale",
                "results_awaiting_settlement",
                "daily_output_stale",
                "release_missing",
                "release_unavailable",
            ]
        );
    }

    #[test]
    fn timestamps_lists_every_instant_the_report_carries() {
        // Every instant is distinct, so the list says which field each came from.
        let market = |published: &str, source: &str, refresh: Option<&str>| MarketReport {
            status: Status::Fresh,
            published_at: Some(utc(published)),
            release_id: Some("nba-2026-11-21-r1".into()),
            source_as_of: Some(utc(source)),
            refresh_pending: refresh.is_some(),
            refresh_deadline: refresh.map(utc),
            held_games: Vec::new(),
        };
        let report = FreshnessReport {
            sport: Sport::Nba,
            slate_date: "2026-11-21".parse().unwrap(),
            status: Status::Fresh,
            operational: true,
            degradation_reason: None,
            refresh_pending: true,
            deadline: utc("2026-11-21T15:15:00Z"),
            release_id: Some("nba-2026-11-21-r1".into()),
            source_as_of: Some(utc("2026-11-21T12:55:00Z")),
            markets: BTreeMap::from([
                (
                    ModelType::WonOnPoints,
                    market(
                        "2026-11-21T13:38:00Z",
                        "2026-11-21T12:56:00Z",
                        Some("2026-11-21T19:00:00Z"),
                    ),
                ),
                (
                    ModelType::OverUnder,
                    market("2026-11-21T13:37:00Z", "2026-11-21T12:57:00Z", None),
                ),
            ]),
            artifacts: ArtifactTimes {
                predictions: Some(utc("2026-11-21T13:36:00Z")),
                results: Some(utc("2026-11-21T13:39:00Z")),
                summaries: None,
                model_tracking: Some(utc("2026-11-21T13:40:00Z")),
            },
        };
        let mut all = report.timestamps();
        all.sort();
        let expected: Vec<DateTime<Utc>> = [
            "2026-11-21T12:55:00Z",
            "2026-11-21T12:56:00Z",
            "2026-11-21T12:57:00Z",
            "2026-11-21T13:36:00Z",
            "2026-11-21T13:37:00Z",
            "2026-11-21T13:38:00Z",
            "2026-11-21T13:39:00Z",
            "2026-11-21T13:40:00Z",
            "2026-11-21T15:15:00Z",
            "2026-11-21T19:00:00Z",
        ]
        .into_iter()
        .map(utc)
        .collect();
        assert_eq!(all, expected);
    }
}
