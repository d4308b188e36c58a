//! Shared helpers: concurrent callers and decision tallies.

use std::sync::Arc;

use chrono::NaiveDate;
use chrono::{DateTime, TimeZone, Utc};
use linecast_core::{Day, Month};
use linecast_limits::{Limiter, MonthDecision, Rate, RateDecision};

pub const MONTH: Month = (2026, 3);
/// A day of [`MONTH`].
pub const DAY: Day = match NaiveDate::from_ymd_opt(2026, 3, 14) {
    Some(day) => day,
    None => panic!("a valid date"),
};
pub const HIGH_LIMIT: u64 = 1_000_000;

pub fn at(second: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, second).unwrap()
}

/// Runs `tasks` concurrent tasks per limiter, each making `calls` monthly
/// counting calls, and returns every decision.
pub async fn count_concurrently(
    limiters: &[Arc<dyn Limiter>],
    tasks: usize,
    calls: usize,
    customer_id: i64,
    day: Day,
    limit: u64,
) -> Vec<MonthDecision> {
    let mut handles = Vec::new();
    for limiter in limiters {
        for _ in 0..tasks {
            let limiter = Arc::clone(limiter);
            handles.push(tokio::spawn(async move {
                let mut out = Vec::with_capacity(calls);
                for _ in 0..calls {
                    out.push(limiter.try_count_month(customer_id, day, limit).await.unwrap());
                }
                out
            }));
        }
    }
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.await.unwrap());
    }
    all
}

/// The `used` values of counted decisions, sorted.
pub fn counted_values(decisions: &[MonthDecision]) -> Vec<u64> {
    let mut used: Vec<u64> = decisions
        .iter()
        .filter_map(|d| match d {
            MonthDecision::Counted { used } => Some(*used),
            MonthDecision::Exhausted { .. } | MonthDecision::Held { .. } => None,
        })
        .collect();
    used.sort_unstable();
    used
}

/// The per-key rate of the spec: 50 per second, bursts of up to 100.
pub const RATE: Rate = Rate {
    per_second: 50,
    burst: 100,
};

/// `ms` milliseconds (and `us` microseconds) after `at(10)`.
pub fn at_ms(ms: i64, us: i64) -> DateTime<Utc> {
    at(10) + chrono::Duration::milliseconds(ms) + chrono::Duration::microseconds(us)
}

fn allowed(remaining: u32, full_in_secs: u64) -> RateDecision {
    RateDecision::Allowed {
        remaining,
        full_in_secs,
    }
}

const REFUSED: RateDecision = RateDecision::Refused { retry_after_secs: 1 };

/// One script of rate calls, (key, instant, expected decision), that every
/// `Limiter` must answer identically: the same bucket in process and in
/// Redis. Expectations are worked out by hand from "50 per second
/// sustained, bursts of up to 100" (a token every 20 ms).
pub fn rate_script() -> Vec<(i64, DateTime<Utc>, RateDecision)> {
    let mut script = Vec::new();
    // A quiet key's burst: 100 at once, each reporting what is left; the
    // bucket is full again 20 ms per call later (rounded up to seconds).
    for n in 1..=100u32 {
        script.push((3, at_ms(0, 0), allowed(100 - n, if n <= 50 { 1 } else { 2 })));
    }
    script.push((3, at_ms(0, 0), REFUSED));
    // The next token is back 20 ms later, not a microsecond sooner.
    script.push((3, at_ms(19, 999), REFUSED));
    script.push((3, at_ms(20, 0), allowed(0, 2)));
    script.push((3, at_ms(20, 0), REFUSED));
    // Keys are independent.
    script.push((4, at_ms(0, 0), allowed(99, 1)));
    // 980 ms later 49 tokens are back: one taken, 48 left; full in 1.04 s.
    script.push((3, at_ms(1000, 0), allowed(48, 2)));
    // A call stamped earlier (a caller racing on the clock) is never more
    // lenient: it is refused where the later one was admitted.
    script.push((3, at_ms(0, 0), REFUSED));
    script
}

/// Runs `rate_script` on `limiter` and checks every decision.
pub async fn assert_rate_script(limiter: &dyn Limiter) {
    for (i, (key, now, expected)) in rate_script().into_iter().enumerate() {
        let got = limiter.check_rate(key, RATE, now).await.unwrap();
        assert_eq!(got, expected, "call {i} (key {key} at {now})");
    }
}

/// One call every 5 ms for 3 s (600 calls, 200/s) on one key, alternating
/// between `limiters`; returns how many were admitted. By hand: calls 0 to
/// 132 fit the burst (the bucket runs 15 ms further ahead per call until it
/// is 2 s ahead at 660 ms), then one per 20 ms from 680 ms to 2,980 ms
/// (116): 249, within burst + 3 s × 50 = 250.
pub async fn flood(limiters: &[Arc<dyn Limiter>]) -> usize {
    let mut admitted = 0;
    for k in 0..600i64 {
        let limiter = &limiters[usize::try_from(k).unwrap() % limiters.len()];
        if let RateDecision::Allowed { .. } = limiter.check_rate(9, RATE, at_ms(5 * k, 0)).await.unwrap() {
            admitted += 1;
        }
    }
    admitted
}
