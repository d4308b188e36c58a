//! Win/loss tallies and the percent rounding every payload shares.

use linecast_domain::Side;

/// Percent 0-100 with one decimal, `None` when the denominator is 0.
pub fn percent(numerator: usize, denominator: usize) -> Option<f64> {
    (denominator > 0).then(|| round_to(numerator as f64 * 100.0 / denominator as f64, 1))
}

/// Rounds half away from zero to `decimals` places, never −0: the domain's
/// rule, re-exported for embedders of this crate.
pub use linecast_domain::round::to_places as round_to;

/// Wins and losses of one model over a set of graded games, split by side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WinLoss {
    pub wins: usize,
    pub losses: usize,
    pub pos_wins: usize,
    pub pos_n: usize,
    pub neg_wins: usize,
    pub neg_n: usize,
}

impl WinLoss {
    pub fn record(&mut self, side: Side, hit: bool) {
        let (w, n) = match side {
            Side::Positive => (&mut self.pos_wins, &mut self.pos_n),
            Side::Negative => (&mut self.neg_wins, &mut self.neg_n),
        };
        *n += 1;
        if hit {
            *w += 1;
            self.wins += 1;
        } else {
            self.losses += 1;
        }
    }

    /// Graded picks: wins + losses.
    pub const fn n(&self) -> usize {
        self.wins + self.losses
    }

    /// Win percent, one decimal.
    pub fn win_pct(&self) -> Option<f64> {
        percent(self.wins, self.n())
    }

    /// Win percent when the model picked `side`.
    pub fn side_pct(&self, side: Side) -> Option<f64> {
        match side {
            Side::Positive => percent(self.pos_wins, self.pos_n),
            Side::Negative => percent(self.neg_wins, self.neg_n),
        }
    }
}

/// Mean return of the EV system, as accumulated.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EvTally {
    pub games: usize,
    pub units: f64,
}

impl EvTally {
    pub fn record(&mut self, units: f64) {
        self.games += 1;
        self.units += units;
    }

    /// Mean return × 100, one decimal; `None` without games.
    pub fn roi(&self) -> Option<f64> {
        (self.games > 0).then(|| round_to(self.units / self.games as f64 * 100.0, 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_has_one_decimal_and_is_null_without_denominator() {
        assert_eq!(percent(2, 3), Some(66.7));
        assert_eq!(percent(1, 3), Some(33.3));
        assert_eq!(percent(0, 0), None);
        assert_eq!(percent(5, 5), Some(100.0));
    }

    #[test]
    fn a_tiny_negative_roi_rounds_to_an_unsigned_zero() {
        let r = round_to(-0.01, 1);
        assert!(r.abs() < f64::EPSILON);
        assert!(r.is_sign_positive(), "-0.0 would serialize with its sign");
        assert!((round_to(-0.06, 1) + 0.1).abs() < 1e-12);
    }
}
