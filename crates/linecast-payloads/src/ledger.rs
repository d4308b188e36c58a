//! The public ledger's payloads: one UTC day's releases with its root, and
//! the roots by day. Owns their JSON shapes and schemas; the chain rule is
//! `linecast_ledger`, what a day answers is core's `services::ledger`.

use linecast_core::ports::ledger::{DayRoot, Entry};
use linecast_core::services::ledger::LedgerDay;
use serde::Serialize;
use utoipa::ToSchema;

/// How a root is computed, as `/api/v1/public/ledger` states it.
pub const CHAIN_RULE: &str = "root = lowercase hex SHA-256 of the bytes: previous_root (64 hex characters), a newline, \
then for each release and then each late release, in the order listed, published_at TAB series TAB digest NEWLINE \
(UTF-8). The first day's previous_root is 64 zeros; every day since the first has a root, a day without releases \
over the empty list.";

fn day(d: chrono::NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// One kept release as the ledger lists it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LedgerEntry {
    /// When the release was published, RFC 3339 UTC with every digit the
    /// release log keeps (the same text as in the hashed line, and as
    /// `as_of` takes it back).
    #[schema(format = DateTime, example = "2026-11-14T13:58:02.114Z")]
    pub published_at: String,
    /// The series: `{sport}/predictions/{model_type}` or `{sport}/odds`.
    #[schema(example = "nba/predictions/won_on_points")]
    pub series: String,
    /// SHA-256 of the release's bytes, lowercase hex.
    #[schema(
        pattern = "^[0-9a-f]{64}$",
        example = "9f2c4e0b4f6a1d3e8b7c5a6d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f"
    )]
    pub digest: String,
}

impl From<&Entry> for LedgerEntry {
    fn from(entry: &Entry) -> Self {
        Self {
            published_at: crate::time::exact(entry.published_at),
            series: entry.series.clone(),
            digest: entry.digest.clone(),
        }
    }
}

/// One UTC day of the ledger.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LedgerDayResponse {
    /// The UTC day.
    #[schema(format = Date, example = "2026-11-14")]
    pub date: String,
    /// True once the day is sealed (from 01:00 UTC the next day): its lists
    /// and root never change again. False for today (and yesterday before
    /// 01:00 UTC): the releases published so far, no root.
    pub complete: bool,
    /// The root this day chains from: the day before's, or 64 zeros for the
    /// first day. Null while the day is not complete.
    #[schema(pattern = "^[0-9a-f]{64}$")]
    pub previous_root: Option<String>,
    /// SHA-256 over `previous_root` and the listed lines (see
    /// `/api/v1/public/ledger`'s `chain`). Null while the day is not complete.
    #[schema(pattern = "^[0-9a-f]{64}$")]
    pub root: Option<String>,
    /// Lines hashed: `releases` and `late` together.
    pub count: usize,
    /// The releases published this UTC day, by `published_at`, then
    /// `series`, then `digest`.
    pub releases: Vec<LedgerEntry>,
    /// Releases of earlier days recorded after their day was sealed (a late
    /// backfill), listed and hashed after `releases`, in the same order.
    pub late: Vec<LedgerEntry>,
}

impl From<&LedgerDay> for LedgerDayResponse {
    fn from(value: &LedgerDay) -> Self {
        match value {
            LedgerDay::Sealed(d) => Self {
                date: day(d.date),
                complete: true,
                previous_root: Some(d.previous.clone()),
                root: Some(d.root.clone()),
                count: d.count(),
                releases: d.releases.iter().map(LedgerEntry::from).collect(),
                late: d.late.iter().map(LedgerEntry::from).collect(),
            },
            LedgerDay::Open { date, releases } => Self {
                date: day(*date),
                complete: false,
                previous_root: None,
                root: None,
                count: releases.len(),
                releases: releases.iter().map(LedgerEntry::from).collect(),
                late: Vec::new(),
            },
        }
    }
}

/// A sealed day's root.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LedgerRoot {
    #[schema(format = Date, example = "2026-11-14")]
    pub date: String,
    #[schema(pattern = "^[0-9a-f]{64}$")]
    pub previous_root: String,
    #[schema(pattern = "^[0-9a-f]{64}$")]
    pub root: String,
    /// Releases published that day.
    pub releases: u32,
    /// Late releases the day lists.
    pub late: u32,
}

/// The roots by day.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LedgerRootsResponse {
    /// How a root is computed.
    pub chain: &'static str,
    /// Every sealed day, oldest first, one per UTC day from the first kept
    /// release's day through the last sealed day; each `previous_root` is
    /// the `root` before it.
    pub days: Vec<LedgerRoot>,
}

impl From<&Vec<DayRoot>> for LedgerRootsResponse {
    fn from(roots: &Vec<DayRoot>) -> Self {
        Self {
            chain: CHAIN_RULE,
            days: roots
                .iter()
                .map(|r| LedgerRoot {
                    date: day(r.date),
                    previous_root: r.previous.clone(),
                    root: r.root.clone(),
                    releases: r.releases,
                    late: r.late,
                })
                .collect(),
        }
    }
}
