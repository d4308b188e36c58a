//! The strategies payloads: the leaderboard and one strategy's replay, and
//! the `Deprecation` value announcing `legacy_v1`. Owns their JSON shapes
//! and schemas; must not read a port or decide a rule (the core strategies
//! service and `linecast-strategies` do).

use linecast_core::services::history::SeasonData;
use linecast_strategies::{Leaderboard, Replay};
use serde::Serialize;
use utoipa::ToSchema;

use super::time::rfc3339;

/// When `legacy_v1` became deprecated: 2026-11-21T00:00:00Z, the first
/// linecast release, which shipped `recorded_v2` as its replacement (D15).
pub const LEGACY_V1_DEPRECATED_AT: i64 = 1_795_219_200;

/// The RFC 9745 `Deprecation` value: `@` and the Unix seconds of the
/// deprecation date (a Structured Fields date).
pub fn deprecation_header_value() -> String {
    format!("@{LEGACY_V1_DEPRECATED_AT}")
}

/// The leaderboard of the sixteen strategies.
#[derive(Debug, Serialize, ToSchema)]
pub struct StrategiesResponse<'a> {
    pub season: String,
    /// Publication time of the season store.
    pub last_updated: String,
    /// sport, market, min_sample (30), accounting, price_basis, strategies
    /// [{id, name, signal, rank, wins, losses, record, win_pct, roi, n, ranked,
    /// units; recorded_v2 adds pushes, candidates, exclusions}].
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub leaderboard: &'a Leaderboard,
}

impl<'a> StrategiesResponse<'a> {
    pub fn new(data: &SeasonData, leaderboard: &'a Leaderboard) -> Self {
        Self {
            season: data.season.to_string(),
            last_updated: rfc3339(data.version.last_modified),
            leaderboard,
        }
    }
}

/// One strategy replayed game by game.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReplayResponse<'a> {
    pub season: String,
    pub last_updated: String,
    /// sport, market, min_sample, accounting, price_basis, strategy (the
    /// leaderboard entry plus units), games_considered, games (oldest first:
    /// date, time_est, teams, scores, side, price, open_line, close_line, won,
    /// outcome, profit_units, running_units), excluded_rows (with
    /// include_excluded=true).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub replay: &'a Replay,
}

impl<'a> ReplayResponse<'a> {
    pub fn new(data: &SeasonData, replay: &'a Replay) -> Self {
        Self {
            season: data.season.to_string(),
            last_updated: rfc3339(data.version.last_modified),
            replay,
        }
    }
}
