//! The one settlement rule of calibration, summary and tracking: what a
//! final whose `settlement_status` is `disputed`, `pending` or
//! `provisional` counts for, and how many such finals a figure rests on.
//!
//! The rule: such a final is graded as recorded, like a settled one, in
//! `/results`, calibration, summary and tracking alike (the spec's
//! `graded` and `ungraded_reason` know no settlement, and the three agree
//! with `/results` row for row); each of the three counts, by status, the
//! graded finals it read that are not settled ([`Unsettled`]). Only the
//! strategies' `recorded_v2` accounting leaves them out (a bet needs a
//! settled final), as `linecast_strategies` states. A status this module
//! does not name (null included, the stores before the column) is read as
//! settled here.
//!
//! Owns the classification and the count; knows nothing of payloads. The
//! rule's sentence is `settlement` in [`crate::GRADING_RULES`].

use linecast_domain::SeasonRow;

/// Where a final stands, from its `settlement_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Settlement {
    /// `settled`, null, or a value not named below.
    Settled,
    Disputed,
    Pending,
    Provisional,
}

impl Settlement {
    /// The settlement of `row`, its `settlement_status` read exactly.
    pub fn of(row: &SeasonRow) -> Self {
        match row.settlement_status.as_deref() {
            Some("disputed") => Self::Disputed,
            Some("pending") => Self::Pending,
            Some("provisional") => Self::Provisional,
            _ => Self::Settled,
        }
    }
}

/// Graded finals a figure read whose settlement is not final, by status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Unsettled {
    pub disputed: usize,
    pub pending: usize,
    pub provisional: usize,
}

impl Unsettled {
    /// The count over `rows`: the graded rows a figure read.
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a SeasonRow>) -> Self {
        let mut counts = Self::default();
        for row in rows {
            match Settlement::of(row) {
                Settlement::Settled => {}
                Settlement::Disputed => counts.disputed += 1,
                Settlement::Pending => counts.pending += 1,
                Settlement::Provisional => counts.provisional += 1,
            }
        }
        counts
    }
}
