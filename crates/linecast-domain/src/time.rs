//! Eastern Time, the league calendar's clock: slate dates, game times and
//! the daily deadline are America/New_York wall-clock values. This is the
//! one place that converts between them and instants.

use chrono::{DateTime, Duration, DurationRound, NaiveDate, NaiveTime, SecondsFormat, TimeZone, Utc};
use chrono_tz::America::New_York;

/// The America/New_York calendar date at `instant`: the slate date a
/// request made then is about.
pub fn et_date(instant: DateTime<Utc>) -> NaiveDate {
    instant.with_timezone(&New_York).date_naive()
}

/// The instant of an ET wall-clock time on `date` (a game's start, the daily
/// deadline). A time repeated by the autumn change is its first occurrence;
/// a time skipped by the spring change is `None`.
pub fn et_instant(date: NaiveDate, time: NaiveTime) -> Option<DateTime<Utc>> {
    New_York
        .from_local_datetime(&date.and_time(time))
        .earliest()
        .map(|t| t.with_timezone(&Utc))
}

/// A publication instant with every digit the release log keeps (to the
/// microsecond; a whole second has no fraction), RFC 3339 in UTC:
/// `2026-11-22T16:16:04.460357Z`. The one spelling of a kept release's
/// `published_at`: payloads write it (passed back as `as_of`, it reads the
/// release published then) and the public ledger hashes it.
pub fn exact(t: DateTime<Utc>) -> String {
    t.duration_trunc(Duration::microseconds(1))
        .unwrap_or(t)
        .to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn a_publication_instant_keeps_every_digit_to_the_microsecond() {
        assert_eq!(exact(utc("2026-11-22T16:16:04.460357Z")), "2026-11-22T16:16:04.460357Z");
        assert_eq!(exact(utc("2026-11-22T16:16:04.460Z")), "2026-11-22T16:16:04.460Z");
        assert_eq!(exact(utc("2026-11-22T16:16:04Z")), "2026-11-22T16:16:04Z");
        // A file system's nanoseconds are cut to what the release log keeps.
        assert_eq!(
            exact(utc("2026-11-22T16:16:04.460357891Z")),
            "2026-11-22T16:16:04.460357Z"
        );
    }

    fn date(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn time(s: &str) -> NaiveTime {
        NaiveTime::parse_from_str(s, "%H:%M").unwrap()
    }

    #[test]
    fn the_et_date_rolls_over_at_et_midnight_in_winter_and_in_summer() {
        assert_eq!(et_date(utc("2026-11-22T04:59:59Z")), date("2026-11-21"));
        assert_eq!(et_date(utc("2026-11-22T05:00:00Z")), date("2026-11-22"));
        assert_eq!(et_date(utc("2026-07-04T03:59:59Z")), date("2026-07-03"));
        assert_eq!(et_date(utc("2026-07-04T04:00:00Z")), date("2026-07-04"));
    }

    #[test]
    fn the_et_date_follows_the_us_daylight_changes() {
        // Spring forward 2026-03-08 07:00Z, fall back 2026-11-01 06:00Z.
        assert_eq!(et_date(utc("2026-03-08T04:59:00Z")), date("2026-03-07"));
        assert_eq!(et_date(utc("2026-03-08T05:00:00Z")), date("2026-03-08"));
        assert_eq!(et_date(utc("2026-11-01T03:59:00Z")), date("2026-10-31"));
        assert_eq!(et_date(utc("2026-11-01T04:00:00Z")), date("2026-11-01"));
    }

    #[test]
    fn an_et_wall_clock_time_is_four_hours_behind_utc_in_summer_and_five_in_winter() {
        assert_eq!(
            et_instant(date("2026-07-04"), time("19:05")),
            Some(utc("2026-07-04T23:05:00Z"))
        );
        assert_eq!(
            et_instant(date("2026-11-22"), time("19:05")),
            Some(utc("2026-11-23T00:05:00Z"))
        );
    }

    #[test]
    fn a_repeated_time_is_its_first_occurrence_and_a_skipped_one_is_none() {
        assert_eq!(
            et_instant(date("2026-11-01"), time("01:30")),
            Some(utc("2026-11-01T05:30:00Z"))
        );
        assert_eq!(et_instant(date("2026-03-08"), time("02:30")), None);
    }
}
