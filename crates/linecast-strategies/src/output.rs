//! The serialized shapes: strategy entry, leaderboard, replay and its rows,
//! and the unknown-strategy error. Field names are the public contract
//! (SERVICE-SPEC "Strategy entry", DESIGN "The sixteen strategies").
//!
//! `season` and `last_updated` are not known to this pure crate: the HTTP
//! layer adds them next to these fields (e.g. with `#[serde(flatten)]`).

use linecast_domain::{GameId, TeamName};
use serde::{Serialize, Serializer};

use crate::accounting::{Accounting, Exclusion, Outcome};

/// Counts of candidate games a rule did not bet, by reason (recorded_v2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Exclusions {
    pub pass: u32,
    pub missing_signal: u32,
    pub missing_or_invalid_price: u32,
    pub unverified_final: u32,
}

impl Exclusions {
    pub fn total(&self) -> u32 {
        self.pass + self.missing_signal + self.missing_or_invalid_price + self.unverified_final
    }
}

/// One strategy's season-to-date record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub id: &'static str,
    pub name: &'static str,
    /// `Line`, `Δ Edge` or `Hybrid`.
    pub signal: &'static str,
    /// 1-based among ranked strategies; null when not ranked.
    pub rank: Option<u32>,
    pub wins: u32,
    pub losses: u32,
    /// `W-L` under legacy_v1, `W-L-P` under recorded_v2.
    pub record: String,
    /// W / (W + L) in percent, 2 decimals; 0 when n is 0 (the spec types it
    /// as a number, never null).
    pub win_pct: f64,
    /// profit / stakes × 100, 2 decimals; null when there is no eligible bet.
    pub roi: Option<f64>,
    /// Decisive bets: W + L.
    pub n: u32,
    /// n >= `min_sample`.
    pub ranked: bool,
    /// Profit in units of a one-unit stake, 4 decimals.
    pub units: f64,
    /// recorded_v2 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pushes: Option<u32>,
    /// recorded_v2 only: every candidate game the rule was evaluated on;
    /// equals W + L + P + the sum of `exclusions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<u32>,
    /// recorded_v2 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exclusions: Option<Exclusions>,
}

/// The ranked leaderboard of the sixteen strategies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Leaderboard {
    pub sport: &'static str,
    /// The public market code: `moneyline`, `spread` or `over_under`.
    pub market: &'static str,
    pub min_sample: u32,
    pub accounting: Accounting,
    pub price_basis: &'static str,
    /// Ranked strategies by ROI, then the unranked by n.
    pub strategies: Vec<Entry>,
}

/// One bet of a replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayGame {
    /// The game's public id (the season row's).
    pub game_id: GameId,
    pub date: String,
    pub time_est: String,
    pub away_team: TeamName,
    pub home_team: TeamName,
    #[serde(serialize_with = "number")]
    pub away_score: f64,
    #[serde(serialize_with = "number")]
    pub home_score: f64,
    /// `home`/`away` or `over`/`under`.
    pub side: &'static str,
    /// The American price the bet settled at.
    #[serde(serialize_with = "number")]
    pub price: f64,
    /// The side bet's opening line (money line, spread or total); null without an opener.
    #[serde(serialize_with = "opt_number")]
    pub open_line: Option<f64>,
    /// The side bet's recorded line.
    #[serde(serialize_with = "opt_number")]
    pub close_line: Option<f64>,
    /// Null on a push.
    pub won: Option<bool>,
    pub outcome: Outcome,
    pub profit_units: f64,
    pub running_units: f64,
}

/// A candidate game the strategy did not bet, with the reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExcludedRow {
    /// The game's public id (the season row's).
    pub game_id: GameId,
    pub date: String,
    pub time_est: String,
    pub away_team: TeamName,
    pub home_team: TeamName,
    /// The side the rule would have bet; null for `pass` and `missing_signal`.
    pub side: Option<&'static str>,
    pub reason: Exclusion,
}

/// One strategy's bets game by game; its totals equal the leaderboard entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replay {
    pub sport: &'static str,
    pub market: &'static str,
    pub min_sample: u32,
    pub accounting: Accounting,
    pub price_basis: &'static str,
    /// The leaderboard entry, rank included.
    pub strategy: Entry,
    /// Candidate games the rule was evaluated on: `games` plus `excluded_rows`.
    pub games_considered: u32,
    /// Bets, oldest first (date, then time).
    pub games: Vec<ReplayGame>,
    /// Candidate games not bet, oldest first; `None` (omitted) unless asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded_rows: Option<Vec<ExcludedRow>>,
}

impl Replay {
    /// Drops `excluded_rows`, for requests without `include_excluded=true`.
    #[must_use]
    pub fn without_excluded(mut self) -> Self {
        self.excluded_rows = None;
        self
    }
}

/// A strategy id that is not one of the sixteen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownStrategy {
    pub id: String,
    pub valid: &'static [&'static str],
}

impl std::fmt::Display for UnknownStrategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown strategy '{}'; allowed: {}", self.id, self.valid.join(", "))
    }
}

impl std::error::Error for UnknownStrategy {}

/// Whole numbers (scores, American prices, totals like 8) serialize as
/// integers so clients see `-110`, not `-110.0`.
#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's serialize_with passes a reference"
)]
fn number<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    match linecast_domain::round::as_whole(*x) {
        Some(whole) => s.serialize_i64(whole),
        None => s.serialize_f64(*x),
    }
}

#[expect(clippy::ref_option, reason = "serde's serialize_with passes a reference")]
fn opt_number<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(v) => number(v, s),
        None => s.serialize_none(),
    }
}
