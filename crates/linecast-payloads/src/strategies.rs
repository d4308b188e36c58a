//! The strategies payloads: the leaderboard and one strategy's replay, and
//! the `Deprecation` value announcing `legacy_v1`. Owns their JSON shapes
//! and schemas; must not read a port or decide a rule (the core strategies
//! service and `linecast-strategies` do).

use linecast_core::services::history::SeasonData;
use linecast_strategies::{Accounting, Entry, ExcludedRow, Leaderboard, Replay, ReplayGame};
use serde::Serialize;
use utoipa::ToSchema;

use crate::schema::{AccountingCode, MarketCode};
use crate::shapes::{ExcludedRowShape, ReplayGameShape, StrategyEntryShape};
use crate::time::rfc3339;

/// When `legacy_v1` became deprecated: 2026-11-21T00:00:00Z, the first
/// linecast release, which shipped `recorded_v2` as its replacement (docs/decisions.md, Strategies).
pub const LEGACY_V1_DEPRECATED_AT: i64 = 1_795_219_200;

/// The RFC 9745 `Deprecation` value: `@` and the Unix seconds of the
/// deprecation date (a Structured Fields date).
pub fn deprecation_header_value() -> String {
    format!("@{LEGACY_V1_DEPRECATED_AT}")
}

/// The leaderboard of the sixteen strategies: ranked strategies by ROI
/// descending, then the unranked by `n` descending.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StrategiesResponse<'a> {
    pub season: String,
    /// Publication time of the season store.
    #[schema(format = DateTime)]
    pub last_updated: String,
    pub sport: &'static str,
    /// The public market: `moneyline`, `spread` or `over_under`.
    #[schema(value_type = MarketCode)]
    pub market: &'static str,
    /// Decisive bets a strategy needs to be ranked (30).
    pub min_sample: u32,
    #[schema(value_type = AccountingCode)]
    pub accounting: Accounting,
    /// How bets are priced under `accounting`.
    pub price_basis: &'static str,
    #[schema(value_type = Vec<StrategyEntryShape>)]
    pub strategies: &'a [Entry],
}

impl<'a> StrategiesResponse<'a> {
    pub fn new(data: &SeasonData, leaderboard: &'a Leaderboard) -> Self {
        let Leaderboard {
            sport,
            market,
            min_sample,
            accounting,
            price_basis,
            strategies,
        } = leaderboard;
        Self {
            season: data.season.to_string(),
            last_updated: rfc3339(data.version.last_modified),
            sport,
            market,
            min_sample: *min_sample,
            accounting: *accounting,
            price_basis,
            strategies,
        }
    }
}

/// One strategy replayed game by game; its totals equal the leaderboard entry.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayResponse<'a> {
    pub season: String,
    #[schema(format = DateTime)]
    pub last_updated: String,
    pub sport: &'static str,
    #[schema(value_type = MarketCode)]
    pub market: &'static str,
    pub min_sample: u32,
    #[schema(value_type = AccountingCode)]
    pub accounting: Accounting,
    pub price_basis: &'static str,
    /// The leaderboard entry, rank included.
    #[schema(value_type = StrategyEntryShape)]
    pub strategy: &'a Entry,
    /// Candidate games the rule was evaluated on: `games` plus the excluded ones.
    pub games_considered: u32,
    /// Bets, oldest first (date, then time).
    #[schema(value_type = Vec<ReplayGameShape>)]
    pub games: &'a [ReplayGame],
    /// Candidate games not bet, oldest first; present only with
    /// `include_excluded=true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<ExcludedRowShape>>)]
    pub excluded_rows: Option<&'a [ExcludedRow]>,
}

impl<'a> ReplayResponse<'a> {
    pub fn new(data: &SeasonData, replay: &'a Replay) -> Self {
        let Replay {
            sport,
            market,
            min_sample,
            accounting,
            price_basis,
            strategy,
            games_considered,
            games,
            excluded_rows,
        } = replay;
        Self {
            season: data.season.to_string(),
            last_updated: rfc3339(data.version.last_modified),
            sport,
            market,
            min_sample: *min_sample,
            accounting: *accounting,
            price_basis,
            strategy,
            games_considered: *games_considered,
            games,
            excluded_rows: excluded_rows.as_deref(),
        }
    }
}
