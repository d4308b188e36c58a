//! America/New_York dates without a time-zone database: the US rule in
//! force since 2007 (daylight time from the second Sunday of March, 2:00
//! local, to the first Sunday of November, 2:00 local) is all the generator
//! and the CLI need.

use chrono::{DateTime, Datelike, NaiveDate, Utc, Weekday};

use crate::calendar::{next_weekday, plus};

/// Hours Eastern Time is behind UTC at `instant`: 4 in daylight time, else 5.
pub fn et_offset_hours(instant: DateTime<Utc>) -> i64 {
    let year = instant.year();
    let starts = next_weekday(
        plus(NaiveDate::from_ymd_opt(year, 3, 1).unwrap_or(NaiveDate::MIN), 7),
        Weekday::Sun,
    );
    let ends = next_weekday(
        NaiveDate::from_ymd_opt(year, 11, 1).unwrap_or(NaiveDate::MIN),
        Weekday::Sun,
    );
    let dst_start = starts.and_hms_opt(7, 0, 0).map(|t| t.and_utc());
    let dst_end = ends.and_hms_opt(6, 0, 0).map(|t| t.and_utc());
    match (dst_start, dst_end) {
        (Some(s), Some(e)) if instant >= s && instant < e => 4,
        _ => 5,
    }
}

/// The America/New_York calendar date at `instant`.
pub fn et_date(instant: DateTime<Utc>) -> NaiveDate {
    (instant - chrono::Duration::hours(et_offset_hours(instant))).date_naive()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn late_evening_utc_is_still_the_same_et_day_and_dst_switches_on_the_us_sundays() {
        assert_eq!(et_date(utc("2026-11-22T03:00:00Z")).to_string(), "2026-11-21");
        assert_eq!(et_date(utc("2026-11-22T05:00:00Z")).to_string(), "2026-11-22");
        assert_eq!(et_offset_hours(utc("2026-03-08T06:59:00Z")), 5);
        assert_eq!(et_offset_hours(utc("2026-03-08T07:00:00Z")), 4);
        assert_eq!(et_offset_hours(utc("2026-11-01T05:59:00Z")), 4);
        assert_eq!(et_offset_hours(utc("2026-11-01T06:00:00Z")), 5);
        assert_eq!(et_date(utc("2026-07-04T03:30:00Z")).to_string(), "2026-07-03");
    }
}
