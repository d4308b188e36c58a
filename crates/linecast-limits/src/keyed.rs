//! In-process limits by a caller's key (a client address, a session):
//! [`KeyedLimiter`], GCRA token buckets by key, and [`OncePerSecond`], a
//! log line at most once a second per key. Both keep an idle key a minute
//! (a bucket is full again within seconds) and at most a fixed number of
//! keys, least recently used out first. With N instances behind a balancer
//! a key gets at most N times the rate.

use std::hash::Hash;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use moka::sync::Cache;

use crate::{Gcra, Rate, RateDecision, Step};

/// How long an idle key's state is kept.
const IDLE: Duration = Duration::from_mins(1);

/// One key's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyedDecision {
    Allowed,
    Refused { retry_after_secs: u64 },
}

impl From<RateDecision> for KeyedDecision {
    fn from(decision: RateDecision) -> Self {
        match decision {
            RateDecision::Allowed { .. } => Self::Allowed,
            RateDecision::Refused { retry_after_secs } => Self::Refused { retry_after_secs },
        }
    }
}

/// GCRA token buckets by key, in process.
pub struct KeyedLimiter<K> {
    /// `None` when the limit is off (a rate of 0).
    rate: Option<Rate>,
    /// The zero of the buckets' microsecond clock.
    epoch: Instant,
    /// Each key's TAT (µs since `epoch`).
    buckets: Cache<K, Arc<Mutex<i64>>>,
    /// When a token was last taken from any bucket (µs since `epoch`): a
    /// bucket is full again at most `burst / rate` after its last token, so
    /// past that every bucket is full ([`KeyedLimiter::quiet`]).
    last_taken_us: AtomicI64,
}

impl<K: Hash + Eq + Send + Sync + 'static> KeyedLimiter<K> {
    /// `per_second` calls sustained and `burst` at once, for at most
    /// `max_keys` keys at a time; a `per_second` of 0 turns the limit off.
    pub fn new(per_second: u32, burst: u32, max_keys: u64) -> Self {
        Self {
            rate: (per_second > 0).then_some(Rate {
                per_second,
                burst: burst.max(1),
            }),
            epoch: Instant::now(),
            last_taken_us: AtomicI64::new(i64::MIN / 2),
            buckets: Cache::builder().max_capacity(max_keys).time_to_idle(IDLE).build(),
        }
    }

    /// The sustained rate, per second (0 when off).
    pub fn per_second(&self) -> u32 {
        self.rate.map_or(0, |r| r.per_second)
    }

    fn micros(&self, now: Instant) -> i64 {
        i64::try_from(now.saturating_duration_since(self.epoch).as_micros()).unwrap_or(i64::MAX)
    }

    /// Takes one token from `key`'s bucket at `now`.
    pub fn check(&self, key: K, now: Instant) -> KeyedDecision {
        let Some(rate) = self.rate else {
            return KeyedDecision::Allowed;
        };
        let gcra = Gcra::new(rate);
        let now_us = self.micros(now);
        let bucket = self.buckets.get_with(key, || Arc::new(Mutex::new(i64::MIN)));
        let mut tat = bucket.lock().unwrap_or_else(PoisonError::into_inner);
        let step = gcra.step((*tat != i64::MIN).then_some(*tat), now_us);
        if let Step::Admit { tat: next, .. } = step {
            *tat = next;
            self.last_taken_us.fetch_max(now_us, Ordering::Relaxed);
        }
        gcra.decision(step).into()
    }

    /// Gives back one token taken from `key`'s bucket by [`check`] (the
    /// call it paid for turned out not to count).
    ///
    /// [`check`]: KeyedLimiter::check
    pub fn refund(&self, key: &K) {
        let Some(rate) = self.rate else {
            return;
        };
        if let Some(bucket) = self.buckets.get(key) {
            let mut tat = bucket.lock().unwrap_or_else(PoisonError::into_inner);
            if *tat != i64::MIN {
                *tat -= Gcra::new(rate).interval_us();
            }
        }
    }

    /// Whether no token was taken from any bucket within a full refill
    /// time before `now` (every bucket is full; true when the limit is off).
    pub fn quiet(&self, now: Instant) -> bool {
        let Some(rate) = self.rate else {
            return true;
        };
        self.micros(now) - self.last_taken_us.load(Ordering::Relaxed) > Gcra::new(rate).tolerance_us()
    }
}

/// Events logged at most once a second per key: the first of a second is
/// logged with how many were only counted since the last line.
pub struct OncePerSecond<K> {
    windows: Cache<K, Arc<Mutex<Window>>>,
}

#[derive(Default)]
struct Window {
    logged_at: Option<Instant>,
    unlogged: u64,
}

impl<K: Hash + Eq + Send + Sync + 'static> OncePerSecond<K> {
    /// For at most `max_keys` keys at a time.
    pub fn new(max_keys: u64) -> Self {
        Self {
            windows: Cache::builder().max_capacity(max_keys).time_to_idle(IDLE).build(),
        }
    }

    /// An event for `key` at `now`: `Some(unlogged)` when it is to be
    /// logged (with the count of events since the last line that were
    /// not), `None` when it is only counted.
    pub fn note(&self, key: K, now: Instant) -> Option<u64> {
        let window = self.windows.get_with(key, Arc::default);
        let mut window = window.lock().unwrap_or_else(PoisonError::into_inner);
        match window.logged_at {
            Some(at) if now.saturating_duration_since(at) < Duration::from_secs(1) => {
                window.unlogged += 1;
                None
            }
            _ => {
                window.logged_at = Some(now);
                Some(std::mem::take(&mut window.unlogged))
            }
        }
    }
}

impl<K> std::fmt::Debug for OncePerSecond<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OncePerSecond")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_gets_its_burst_then_waits_for_tokens_and_others_are_unaffected() {
        let limiter = KeyedLimiter::new(4, 4, 100);
        let t0 = Instant::now();
        for _ in 0..4 {
            assert_eq!(limiter.check("a", t0), KeyedDecision::Allowed);
        }
        assert_eq!(limiter.check("a", t0), KeyedDecision::Refused { retry_after_secs: 1 });
        assert_eq!(limiter.check("b", t0), KeyedDecision::Allowed);
        // A quarter second later one token is back, and only one.
        let t1 = t0 + Duration::from_millis(250);
        assert_eq!(limiter.check("a", t1), KeyedDecision::Allowed);
        assert!(matches!(limiter.check("a", t1), KeyedDecision::Refused { .. }));
    }

    #[test]
    fn a_refunded_token_is_back_at_once_and_only_taken_tokens_come_back() {
        let limiter = KeyedLimiter::new(20, 2, 100);
        let t0 = Instant::now();
        assert!(limiter.quiet(t0));
        assert_eq!(limiter.check("a", t0), KeyedDecision::Allowed);
        assert!(!limiter.quiet(t0));
        assert_eq!(limiter.check("a", t0), KeyedDecision::Allowed);
        assert!(matches!(limiter.check("a", t0), KeyedDecision::Refused { .. }));
        limiter.refund(&"a");
        assert_eq!(limiter.check("a", t0), KeyedDecision::Allowed);
        assert!(matches!(limiter.check("a", t0), KeyedDecision::Refused { .. }));
        // A bucket never taken from gains nothing from a refund.
        limiter.refund(&"b");
        assert_eq!(limiter.check("b", t0), KeyedDecision::Allowed);
        assert_eq!(limiter.check("b", t0), KeyedDecision::Allowed);
        assert!(matches!(limiter.check("b", t0), KeyedDecision::Refused { .. }));
        // 2 tokens of 50 ms each: quiet 100 ms after the last one taken.
        assert!(!limiter.quiet(t0 + Duration::from_millis(100)));
        assert!(limiter.quiet(t0 + Duration::from_millis(101)));
    }

    #[test]
    fn a_rate_of_zero_turns_the_limit_off() {
        let limiter = KeyedLimiter::new(0, 0, 100);
        let t0 = Instant::now();
        assert!((0..1000).all(|_| limiter.check("a", t0) == KeyedDecision::Allowed));
        assert_eq!(limiter.per_second(), 0);
    }

    #[test]
    fn one_line_a_second_per_key_with_the_count_of_the_unlogged() {
        let log = OncePerSecond::new(100);
        let t0 = Instant::now();
        assert_eq!(log.note("a", t0), Some(0));
        assert_eq!(log.note("a", t0 + Duration::from_millis(10)), None);
        assert_eq!(log.note("a", t0 + Duration::from_millis(999)), None);
        assert_eq!(log.note("b", t0), Some(0));
        assert_eq!(log.note("a", t0 + Duration::from_secs(1)), Some(2));
        assert_eq!(log.note("a", t0 + Duration::from_millis(1500)), None);
    }
}
