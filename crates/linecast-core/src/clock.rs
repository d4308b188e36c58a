//! The clock port. Use cases never read the system clock directly, so demos
//! and tests can freeze time (`LINECAST_NOW`).

use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, NaiveDateTime, NaiveTime, Utc};

/// A source of "now".
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(since) => at_unix(since.as_secs(), since.subsec_nanos()),
            Err(_) => Utc::now(),
        }
    }
}

/// The instant `secs` and `nanos` after the Unix epoch. Every authenticated
/// request reads the clock more than once, and chrono's conversion of a
/// timestamp to a calendar date costs more than reading the clock: each
/// thread works the date out once per UTC day and adds the time of day.
fn at_unix(secs: u64, nanos: u32) -> DateTime<Utc> {
    const DAY_SECS: u64 = 86_400;
    let (day, second) = (secs / DAY_SECS, (secs % DAY_SECS) as u32);
    let date = crate::memo::clock_day(day, |day| {
        Some(DateTime::from_timestamp(i64::try_from(day * DAY_SECS).ok()?, 0)?.date_naive())
    });
    match (date, NaiveTime::from_num_seconds_from_midnight_opt(second, nanos)) {
        (Some(date), Some(time)) => NaiveDateTime::new(date, time).and_utc(),
        _ => Utc::now(),
    }
}

/// A frozen clock.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub DateTime<Utc>);

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
    }
}

/// A clock that stays where it is set: frozen like `FixedClock`, but a test
/// can move it while the application runs (to cross an ET midnight or a
/// deadline and check that nothing computed earlier is served after).
#[derive(Debug)]
pub struct ManualClock(std::sync::RwLock<DateTime<Utc>>);

impl ManualClock {
    pub fn new(at: DateTime<Utc>) -> Self {
        Self(std::sync::RwLock::new(at))
    }

    /// Moves the clock to `at`.
    pub fn set(&self, at: DateTime<Utc>) {
        if let Ok(mut now) = self.0.write() {
            *now = at;
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        self.0.read().map_or_else(|e| *e.into_inner(), |now| *now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-day shortcut gives what chrono's own conversion gives, across
    /// day, month, year and leap-day boundaries, whichever day the thread
    /// saw before.
    #[test]
    fn the_system_clock_converts_like_chrono() {
        let days = [0_u64, 19_782, 19_783, 20_513, 20_514, 47_541, 47_542, 20_416];
        let moments = [(0_u32, 0_u32), (1, 1), (43_200, 500_000_000), (86_399, 999_999_999)];
        for _ in 0..2 {
            for day in days {
                for (second, nanos) in moments {
                    let secs = day * 86_400 + u64::from(second);
                    let expected = DateTime::from_timestamp(i64::try_from(secs).unwrap(), nanos).unwrap();
                    assert_eq!(at_unix(secs, nanos), expected, "{secs}.{nanos}");
                }
            }
        }
        let (before, now, after) = (Utc::now(), SystemClock.now(), Utc::now());
        assert!(before <= now && now <= after, "{before} {now} {after}");
    }
}
