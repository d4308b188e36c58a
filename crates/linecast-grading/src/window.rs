//! The trailing windows: 1W is the 7 days and 4W the 28 days ending on the
//! latest decided game's date, both inclusive.

use chrono::{Days, NaiveDate};
use linecast_domain::SeasonRow;

use crate::grade::GradedRow;
use crate::market::Decision;

/// Days in the 1W window.
pub const ONE_WEEK_DAYS: u64 = 7;
/// Days in the 4W window.
pub const FOUR_WEEK_DAYS: u64 = 28;

/// A trailing window of `days` days ending on `end`, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: NaiveDate,
    pub end: NaiveDate,
}

impl Window {
    /// The `days`-day window ending on `end` (`days` >= 1).
    pub fn ending(end: NaiveDate, days: u64) -> Self {
        let start = end
            .checked_sub_days(Days::new(days.saturating_sub(1)))
            .unwrap_or(NaiveDate::MIN);
        Self { start, end }
    }

    /// 7 days ending on `end`.
    pub fn one_week(end: NaiveDate) -> Self {
        Self::ending(end, ONE_WEEK_DAYS)
    }

    /// 28 days ending on `end`.
    pub fn four_weeks(end: NaiveDate) -> Self {
        Self::ending(end, FOUR_WEEK_DAYS)
    }

    pub fn contains(&self, date: NaiveDate) -> bool {
        self.start <= date && date <= self.end
    }
}

/// True for a decided game: a final, a posted line, and not a push
/// (spec: `push` is "false for a decided game").
pub fn is_decided(g: &GradedRow) -> bool {
    g.in_scope && matches!(g.decision, Some(Decision::Won(_)))
}

/// The latest date of an in-scope decided game (a final and a line, not a
/// push): the end of the 1W and 4W windows. A day of pushes never ends a
/// window.
pub fn latest_decided(rows: &[SeasonRow], graded: &[GradedRow]) -> Option<NaiveDate> {
    rows.iter()
        .zip(graded)
        .filter(|(_, g)| is_decided(g))
        .map(|(r, _)| r.key.date)
        .max()
}
