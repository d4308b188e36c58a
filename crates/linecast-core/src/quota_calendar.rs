//! The quota calendar: the UTC calendar month that is the quota window,
//! the UTC day usage is counted on, the month rollover (when quotas and
//! refresh counts reset, and when the Redis counters expire) and the stored
//! text of months and days.

use chrono::{DateTime, Datelike, NaiveDate, TimeZone, Utc};

/// A calendar month as `(year, month 1..=12)`, the quota window in UTC.
pub type Month = (i32, u32);

/// A UTC calendar day: the unit of the daily usage counts.
pub type Day = NaiveDate;

/// The day an instant is counted on: its UTC calendar day.
pub fn day_of(now: DateTime<Utc>) -> Day {
    now.date_naive()
}

/// The quota month a day belongs to.
pub fn month_of_day(day: Day) -> Month {
    (day.year(), day.month())
}

/// The quota window: the UTC calendar month of `now`.
pub fn month_of(now: DateTime<Utc>) -> Month {
    month_of_day(day_of(now))
}

/// The first day of `month`; `None` only for a month outside chrono's range.
pub fn first_day((year, month): Month) -> Option<Day> {
    NaiveDate::from_ymd_opt(year, month, 1)
}

/// The month before `month`.
pub fn previous_month((year, month): Month) -> Month {
    if month <= 1 { (year - 1, 12) } else { (year, month - 1) }
}

/// First instant of the next UTC month: when quotas and refresh counts reset.
pub fn next_reset(now: DateTime<Utc>) -> DateTime<Utc> {
    next_month_start(month_of(now)).unwrap_or(now)
}

/// The first instant of the month after `month`, UTC (the one home of the
/// month rollover: quota resets and the Redis counters' expiry). `None` only
/// for a month outside chrono's range.
pub fn next_month_start((year, month): Month) -> Option<DateTime<Utc>> {
    let (y, m) = if month >= 12 {
        (year.checked_add(1)?, 1)
    } else {
        (year, month + 1)
    };
    Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).single()
}

/// The stored month key, `YYYY-MM`.
pub fn month_key((year, month): Month) -> String {
    format!("{year:04}-{month:02}")
}

/// A stored month key read back; `None` unless it is `YYYY-MM`.
pub fn parse_month_key(key: &str) -> Option<Month> {
    let (year, month) = key.split_once('-')?;
    let (year, month): (i32, u32) = (year.parse().ok()?, month.parse().ok()?);
    (key.len() == 7 && (1..=12).contains(&month)).then_some((year, month))
}

/// The stored day key, `YYYY-MM-DD` (sorts as the days do).
pub fn day_key(day: Day) -> String {
    day.format("%Y-%m-%d").to_string()
}

/// A stored day key read back; `None` unless it is `YYYY-MM-DD`.
pub fn parse_day_key(key: &str) -> Option<Day> {
    NaiveDate::parse_from_str(key, "%Y-%m-%d").ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_instant_is_counted_on_its_utc_day_and_that_days_month() {
        let last = Utc.with_ymd_and_hms(2026, 11, 30, 23, 59, 59).unwrap();
        assert_eq!(day_of(last), NaiveDate::from_ymd_opt(2026, 11, 30).unwrap());
        assert_eq!(month_of(last), (2026, 11));
        let next = last + chrono::TimeDelta::seconds(1);
        assert_eq!(day_of(next), NaiveDate::from_ymd_opt(2026, 12, 1).unwrap());
        assert_eq!(month_of(next), month_of_day(day_of(next)));
        assert_eq!(month_of(next), (2026, 12));
    }

    #[test]
    fn month_and_day_keys_read_back_and_nothing_else_does() {
        let day = NaiveDate::from_ymd_opt(2026, 3, 7).unwrap();
        assert_eq!(day_key(day), "2026-03-07");
        assert_eq!(parse_day_key("2026-03-07"), Some(day));
        assert_eq!(parse_month_key(&month_key((2026, 3))), Some((2026, 3)));
        for bad in ["2026-13", "2026-3", "26-03", "2026-03-07", ""] {
            assert_eq!(parse_month_key(bad), None, "{bad}");
        }
        assert_eq!(parse_day_key("2026-02-30"), None);
        assert_eq!(previous_month((2026, 1)), (2025, 12));
        assert_eq!(previous_month((2026, 11)), (2026, 10));
        assert_eq!(first_day((2026, 2)), NaiveDate::from_ymd_opt(2026, 2, 1));
    }

    #[test]
    fn the_month_key_is_zero_padded() {
        assert_eq!(month_key((2026, 3)), "2026-03");
    }
}
