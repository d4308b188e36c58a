//! The public scorecard's own figure: each model's record (wins and losses
//! of its picks) over the rows a scorecard reads, with its win rate's 95%
//! interval. Every other figure of a scorecard is the calibration's
//! ([`crate::calibration`]), computed from the same rows, so the two never
//! disagree.
//!
//! The win rate's interval is analytic: the Wilson score interval (the one
//! the reliability bins use), not a bootstrap. No clock, no I/O.

use linecast_domain::ModelColumn;

use crate::calibration::{MODELS, wilson};
use crate::grade::GradedRow;
use crate::interval::Interval;
use crate::model::Model;
use crate::tally::round_to;

/// The method of [`Record::win_rate_ci`], as a payload states it.
pub const WIN_RATE_METHOD: &str = "wilson_score";

/// One model's picks over a set of graded rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Record {
    /// Graded rows where the model's side won.
    pub wins: usize,
    /// Graded rows where it lost.
    pub losses: usize,
    /// Graded rows where the model had a probability of exactly 0.5 and
    /// picked no side (in neither count).
    pub abstained: usize,
}

impl Record {
    /// Graded picks: wins + losses.
    pub const fn n(&self) -> usize {
        self.wins + self.losses
    }

    /// Wins over picks, 0 to 1, 4 decimals; `None` without picks.
    pub fn win_rate(&self) -> Option<f64> {
        (self.n() > 0).then(|| round_to(self.wins as f64 / self.n() as f64, 4))
    }

    /// The Wilson score 95% interval of the win rate, 6 decimals; `None`
    /// without picks.
    pub fn win_rate_ci(&self) -> Option<Interval> {
        let (low, high) = wilson(self.wins, self.n())?;
        Some(Interval { n: self.n(), low, high }.rounded(6))
    }
}

/// Each calibrated model's record over the graded rows `keeps` admits (by
/// index into `graded`), in [`MODELS`] order: the same picks and hits the
/// summary counts (`grade_row`'s), so a record read from every row equals
/// the summary's season wins and losses.
pub fn records(graded: &[GradedRow], keeps: impl Fn(usize) -> bool) -> Vec<(ModelColumn, Record)> {
    MODELS
        .into_iter()
        .map(|column| {
            let model = Model::Column(column);
            let mut record = Record::default();
            for (_, g) in graded.iter().enumerate().filter(|(i, g)| g.graded && keeps(*i)) {
                match (g.pick(model), g.hit(model)) {
                    (Some(crate::Pick::Side(_)), Some(true)) => record.wins += 1,
                    (Some(crate::Pick::Side(_)), Some(false)) => record.losses += 1,
                    (Some(crate::Pick::Abstain), _) => record.abstained += 1,
                    _ => {}
                }
            }
            (column, record)
        })
        .collect()
}
