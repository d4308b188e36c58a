//! The trailing windows: 1W is the 7 days and 4W the 28 days ending on the
//! latest decided game's date, both inclusive.

use chrono::{Days, NaiveDate};
use linecast_domain::SeasonRow;

use crate::grade::GradedRow;

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

/// The latest date of an in-scope game with a final and a line (a push is
/// decided too: it happened, it just grades nobody).
pub fn latest_decided(rows: &[SeasonRow], graded: &[GradedRow]) -> Option<NaiveDate> {
    rows.iter()
        .zip(graded)
        .filter(|(_, g)| g.in_scope && g.decision.is_some())
        .map(|(r, _)| r.key.date)
        .max()
}
