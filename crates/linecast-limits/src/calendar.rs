//! Month arithmetic the adapters need: storage keys and counter expiry.

use chrono::{DateTime, TimeZone, Utc};
use linecast_core::Month;

/// The first instant of the month after `month`, UTC. `None` only for a month
/// outside chrono's range (never for a real request).
pub(crate) fn next_month_start((year, month): Month) -> Option<DateTime<Utc>> {
    let (y, m) = if month >= 12 {
        (year.checked_add(1)?, 1)
    } else {
        (year, month + 1)
    };
    Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).single()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn december_rolls_over_to_january_of_the_next_year() {
        assert_eq!(
            next_month_start((2026, 12)).unwrap(),
            Utc.with_ymd_and_hms(2027, 1, 1, 0, 0, 0).unwrap()
        );
        assert_eq!(
            next_month_start((2026, 2)).unwrap(),
            Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap()
        );
    }
}
