//! The clock arithmetic of the data-status rules: today's ET slate date, the
//! daily 10:15 America/New_York deadline and the fixed durations the rules
//! use. It knows nothing about manifests.

use chrono::{DateTime, NaiveDate, NaiveTime, TimeDelta, Utc};
use linecast_domain::time::et_instant;

/// Hour and minute of the daily deadline in America/New_York (spec "Limits").
pub const DEADLINE_ET_HOUR: u32 = 10;
/// See [`DEADLINE_ET_HOUR`].
pub const DEADLINE_ET_MINUTE: u32 = 15;

/// One odds cycle: odds and predictions rebuild every two hours (spec
/// "Limits"), so a rebuild owed for newer odds is late one cycle after the
/// odds arrived.
pub const REFRESH_CYCLE: TimeDelta = TimeDelta::hours(2);

/// How old the source data may be when the run starts before the release is
/// `source_stale`. A daily pipeline whose inputs are more than a day older
/// than the run has missed at least one full source update.
pub const SOURCE_MAX_AGE: TimeDelta = TimeDelta::hours(24);

/// The ET calendar date of `now` (the domain's rule): the slate date the
/// data-status endpoint reports on. Callers pass the result as
/// [`crate::FreshnessInputs::slate_date`].
pub use linecast_domain::time::et_date;

/// 10:15 America/New_York on `slate_date`, as a UTC instant.
///
/// The offset is the one in force on that date (EDT, UTC-4, or EST, UTC-5),
/// so the deadline is 14:15Z in summer and 15:15Z in winter, including on the
/// spring-forward and fall-back days (the clocks change at 02:00, well before
/// 10:15).
pub fn daily_deadline(slate_date: NaiveDate) -> DateTime<Utc> {
    let time = NaiveTime::from_hms_opt(DEADLINE_ET_HOUR, DEADLINE_ET_MINUTE, 0).unwrap_or(NaiveTime::MIN);
    match et_instant(slate_date, time) {
        Some(instant) => instant,
        // 10:15 is never skipped by a US DST change; should the rules ever
        // move the change there, fall back to standard time rather than fail.
        None => slate_date.and_time(time).and_utc() + TimeDelta::hours(5),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn date(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn the_deadline_is_1415z_on_an_ordinary_summer_day() {
        assert_eq!(daily_deadline(date("2026-07-15")), utc("2026-07-15T14:15:00Z"));
    }

    #[test]
    fn the_deadline_is_1515z_on_an_ordinary_winter_day() {
        assert_eq!(daily_deadline(date("2026-01-15")), utc("2026-01-15T15:15:00Z"));
    }

    #[test]
    fn the_deadline_on_the_spring_forward_day_is_already_daylight_time() {
        // Clocks jump 02:00 EST -> 03:00 EDT on 2026-03-08.
        assert_eq!(daily_deadline(date("2026-03-08")), utc("2026-03-08T14:15:00Z"));
        assert_eq!(daily_deadline(date("2026-03-07")), utc("2026-03-07T15:15:00Z"));
    }

    #[test]
    fn the_deadline_on_the_fall_back_day_is_already_standard_time() {
        // Clocks fall 02:00 EDT -> 01:00 EST on 2026-11-01.
        assert_eq!(daily_deadline(date("2026-11-01")), utc("2026-11-01T15:15:00Z"));
        assert_eq!(daily_deadline(date("2026-10-31")), utc("2026-10-31T14:15:00Z"));
    }

    #[test]
    fn the_et_date_rolls_over_at_et_midnight_not_utc_midnight() {
        assert_eq!(et_date(utc("2026-11-22T04:59:59Z")), date("2026-11-21"));
        assert_eq!(et_date(utc("2026-11-22T05:00:00Z")), date("2026-11-22"));
        assert_eq!(et_date(utc("2026-07-16T03:59:59Z")), date("2026-07-15"));
        assert_eq!(et_date(utc("2026-07-16T04:00:00Z")), date("2026-07-16"));
    }
}
