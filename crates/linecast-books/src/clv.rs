//! Closing-line value of a pick against a reference close, in no-vig
//! probability points, as linecast's calibration measures CLV: (the picked
//! side's no-vig probability at the close − at the pick) × 100. Positive
//! when the market moved toward the pick.
//!
//! Two references: the sharp book's own close (de-vigged by the chosen
//! method) and the consensus close. Owns the arithmetic only; which quote
//! is the close is [`crate::close`]'s.

use linecast_domain::odds::AmericanOdds;

use crate::consensus::Consensus;
use crate::devig::Method;

/// A side of a two-way market: a (home, or over) or b (away, or under).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// Home, or over.
    A,
    /// Away, or under.
    B,
}

impl Side {
    /// This side's member of a pair ordered (a, b).
    pub fn of<T>(self, (a, b): (T, T)) -> T {
        match self {
            Self::A => a,
            Self::B => b,
        }
    }
}

/// CLV in probability points: `(at_close − at_pick) × 100`.
pub fn clv_points(at_pick: f64, at_close: f64) -> f64 {
    (at_close - at_pick) * 100.0
}

/// CLV of a pick of `side`, taken at prices `pick` (a, b), against a book's
/// closing prices `close` (a, b), both de-vigged by `method`.
pub fn against_book_close(
    side: Side,
    pick: (AmericanOdds, AmericanOdds),
    close: (AmericanOdds, AmericanOdds),
    method: Method,
) -> f64 {
    clv_points(
        side.of(method.devig(pick.0, pick.1)),
        side.of(method.devig(close.0, close.1)),
    )
}

/// CLV of a pick of `side`, taken at prices `pick` (a, b), against the
/// consensus close (the pick de-vigged by the consensus's own method).
pub fn against_consensus_close(side: Side, pick: (AmericanOdds, AmericanOdds), close: &Consensus) -> f64 {
    clv_points(
        side.of(close.method.devig(pick.0, pick.1)),
        side.of((close.p_a, close.p_b)),
    )
}
