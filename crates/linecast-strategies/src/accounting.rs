//! The two accountings: which games are candidates, which price a bet is
//! settled at, and how it settles. It knows nothing about signals or ranking.

use linecast_domain::{AmericanOdds, ModelType, SeasonRow, Side, Sport, UnknownCode};
use linecast_grading::{Decision, decide, side_prices};
use serde::Serialize;

/// How bets are priced and settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Accounting {
    /// Deprecated default: moneyline at captured prices, spread and total at a
    /// flat −110, records from the stored binary outcome column.
    #[default]
    LegacyV1,
    /// Recorded prices of the side bet, W-L-P records, exclusions counted.
    RecordedV2,
}

impl Accounting {
    /// Every accounting, default first.
    pub const ALL: [Accounting; 2] = [Accounting::LegacyV1, Accounting::RecordedV2];

    /// The `accounting` query value.
    pub const fn code(self) -> &'static str {
        match self {
            Accounting::LegacyV1 => "legacy_v1",
            Accounting::RecordedV2 => "recorded_v2",
        }
    }

    /// Parses the `accounting` query value exactly.
    pub fn parse(value: &str) -> Result<Self, UnknownCode> {
        Self::ALL
            .into_iter()
            .find(|a| a.code() == value)
            .ok_or_else(|| UnknownCode {
                kind: "accounting",
                value: value.to_owned(),
                allowed: "legacy_v1, recorded_v2".to_owned(),
            })
    }

    /// legacy_v1 is deprecated; the HTTP layer sends a `Deprecation` header.
    pub const fn is_deprecated(self) -> bool {
        matches!(self, Accounting::LegacyV1)
    }

    /// The `price_basis` sentence served at the top level.
    pub const fn price_basis(self, model_type: ModelType) -> &'static str {
        match (self, model_type) {
            (Accounting::RecordedV2, ModelType::WonOnPoints) => {
                "Each bet is one unit at the recorded money line of the side bet (home_money_line or away_money_line); bets without a valid recorded price or a settled final are excluded, never counted as losses."
            }
            (Accounting::RecordedV2, ModelType::WonOnSpread) => {
                "Each bet is one unit at the recorded spread price of the side bet (home_point_spread_line or away_point_spread_line); bets without a valid recorded price or a settled final are excluded, never counted as losses."
            }
            (Accounting::RecordedV2, ModelType::OverUnder) => {
                "Each bet is one unit at the recorded total price of the side bet (over_line or under_line); bets without a valid recorded price or a settled final are excluded, never counted as losses."
            }
            (Accounting::LegacyV1, ModelType::WonOnPoints) => {
                "Deprecated legacy_v1: one unit at the captured money line of the side bet; wins and losses come from the stored binary outcome column, where a push reads as a loss for the home side."
            }
            (Accounting::LegacyV1, _) => {
                "Deprecated legacy_v1: one unit at an assumed -110 (break-even 52.4%); wins and losses come from the stored binary outcome column, where a push reads as a loss for the home or over side."
            }
        }
    }
}

/// How a settled bet ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Win,
    Loss,
    Push,
}

/// Why a candidate game is not a bet for a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Exclusion {
    /// The rule did not fire: a zero signal or one pointing the other way.
    Pass,
    /// An opener, BLEND or IMPLIED needed by the signal is missing.
    MissingSignal,
    /// The side bet has no valid American price.
    MissingOrInvalidPrice,
    /// `settlement_status` is not `settled` (recorded_v2 only).
    UnverifiedFinal,
}

/// A game every rule is evaluated on, with its result under the accounting.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub row: &'a SeasonRow,
    pub result: Decision,
}

/// The result of a row under the accounting, or `None` when the row is not a
/// candidate at all (not counted in `candidates`, never in `excluded_rows`):
/// - professional leagues consider regular-season and postseason rows only,
///   as grading does;
/// - every accounting needs a final score and a posted line;
/// - legacy_v1 also needs the stored outcome column (1 or 0), which decides
///   the game; recorded_v2 recomputes the result from scores and lines.
pub fn candidate(
    row: &SeasonRow,
    sport: Sport,
    model_type: ModelType,
    accounting: Accounting,
) -> Option<Candidate<'_>> {
    if sport.is_professional() && !row.season_type.is_competitive() {
        return None;
    }
    let decision = decide(row, model_type)?;
    let result = match accounting {
        Accounting::RecordedV2 => decision,
        Accounting::LegacyV1 => match row.stored_outcome? {
            1 => Decision::Won(Side::Positive),
            0 => Decision::Won(Side::Negative),
            _ => return None,
        },
    };
    Some(Candidate { row, result })
}

/// The flat price legacy_v1 assumes for spreads and totals.
const LEGACY_FLAT: f64 = -110.0;

/// A bet that settled: side, price, outcome and profit in units (4 decimals).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settled {
    pub side: Side,
    pub price: AmericanOdds,
    pub outcome: Outcome,
    pub profit: f64,
}

/// Settles a one-unit bet on `side`. The price is checked before finality: a
/// bet without a price could not have been placed at all.
pub fn settle(
    c: Candidate<'_>,
    side: Side,
    model_type: ModelType,
    accounting: Accounting,
) -> Result<Settled, Exclusion> {
    let raw = match (accounting, model_type) {
        (Accounting::LegacyV1, ModelType::WonOnSpread | ModelType::OverUnder) => Some(LEGACY_FLAT),
        (Accounting::LegacyV1, ModelType::WonOnPoints) | (Accounting::RecordedV2, _) => {
            let (pos, neg) = side_prices(c.row, model_type);
            if side == Side::Positive { pos } else { neg }
        }
    };
    let price = raw
        .and_then(|p| AmericanOdds::new(p).ok())
        .ok_or(Exclusion::MissingOrInvalidPrice)?;
    // legacy_v1 reproduces the old accounting, which never looked at finality.
    if accounting == Accounting::RecordedV2 && c.row.settlement_status.as_deref() != Some("settled") {
        return Err(Exclusion::UnverifiedFinal);
    }
    let (outcome, profit) = match c.result {
        Decision::Push => (Outcome::Push, 0.0),
        Decision::Won(w) if w == side => (Outcome::Win, round4(price.win_profit())),
        Decision::Won(_) => (Outcome::Loss, -1.0),
    };
    Ok(Settled {
        side,
        price,
        outcome,
        profit,
    })
}

/// Units to 4 decimals and percentages to 2, never −0 (the domain's rule).
pub use linecast_domain::round::{round2, round4};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounting_codes_round_trip_and_legacy_is_the_deprecated_default() {
        for a in Accounting::ALL {
            assert_eq!(Accounting::parse(a.code()), Ok(a));
        }
        assert!(Accounting::parse("recorded_v3").is_err());
        assert_eq!(Accounting::default(), Accounting::LegacyV1);
        assert!(Accounting::LegacyV1.is_deprecated());
        assert!(!Accounting::RecordedV2.is_deprecated());
    }

    #[test]
    fn rounding_never_yields_negative_zero() {
        assert!(round4(-0.00001).is_sign_positive());
        assert!((round4(100.0 / 110.0) - 0.9091).abs() < 1e-12);
        assert!((round2(52.380_952) - 52.38).abs() < 1e-12);
    }
}
