//! Token buckets by client address (`ClientKey`: an IPv4 address or an IPv6
//! /64), in process, with the GCRA of linecast-limits. Two of them: the
//! per-address limit of the public data routes (`auth::anonymous`) and the
//! limit on failed key checks (`auth::middleware`). With N instances behind
//! a balancer an address gets at most N times the rate (docs/operations.md).

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use linecast_core::{Rate, RateDecision};
use linecast_limits::{Gcra, Step};
use moka::sync::Cache;

use super::client_address::ClientKey;

/// Token buckets by client address.
pub struct AddressLimiter {
    /// `None` when the limit is off (a rate of 0).
    rate: Option<Rate>,
    /// The zero of the buckets' microsecond clock.
    epoch: Instant,
    /// Each address's TAT (µs since `epoch`).
    buckets: Cache<ClientKey, Arc<Mutex<i64>>>,
    /// When a token was last taken from any bucket (µs since `epoch`): a
    /// bucket is full again at most `burst / rate` after its last token, so
    /// past that every bucket is full and `peek` needs no lookup (the gate
    /// peeks on every keyed request; failures are rare).
    last_taken_us: AtomicI64,
}

/// One address's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressDecision {
    Allowed,
    Refused { retry_after_secs: u64 },
}

impl AddressLimiter {
    /// `per_second` calls sustained and `burst` at once; a `per_second` of 0
    /// turns the limit off.
    pub fn new(per_second: u32, burst: u32) -> Self {
        Self {
            rate: (per_second > 0).then_some(Rate {
                per_second,
                burst: burst.max(1),
            }),
            epoch: Instant::now(),
            last_taken_us: AtomicI64::new(i64::MIN / 2),
            buckets: Cache::builder()
                .max_capacity(200_000)
                // An idle bucket is full again within seconds; dropping it
                // after a minute changes nothing.
                .time_to_idle(Duration::from_mins(1))
                .build(),
        }
    }

    /// The sustained rate, per second (0 when off).
    pub fn per_second(&self) -> u32 {
        self.rate.map_or(0, |r| r.per_second)
    }

    fn micros(&self, now: Instant) -> i64 {
        i64::try_from(now.saturating_duration_since(self.epoch).as_micros()).unwrap_or(i64::MAX)
    }

    /// Takes one token from `client`'s bucket at `now`.
    pub fn check(&self, client: ClientKey, now: Instant) -> AddressDecision {
        let Some(rate) = self.rate else {
            return AddressDecision::Allowed;
        };
        let gcra = Gcra::new(rate);
        let now_us = self.micros(now);
        let bucket = self.buckets.get_with(client, || Arc::new(Mutex::new(i64::MIN)));
        let mut tat = bucket.lock().unwrap_or_else(PoisonError::into_inner);
        let step = gcra.step((*tat != i64::MIN).then_some(*tat), now_us);
        if let Step::Admit { tat: next, .. } = step {
            *tat = next;
            self.last_taken_us.fetch_max(now_us, Ordering::Relaxed);
        }
        match gcra.decision(step) {
            RateDecision::Allowed { .. } => AddressDecision::Allowed,
            RateDecision::Refused { retry_after_secs } => AddressDecision::Refused { retry_after_secs },
        }
    }

    /// Gives back one token taken from `client`'s bucket by [`check`]
    /// (the check it paid for turned out not to be a failure).
    ///
    /// [`check`]: AddressLimiter::check
    pub fn refund(&self, client: ClientKey) {
        let Some(rate) = self.rate else {
            return;
        };
        if let Some(bucket) = self.buckets.get(&client) {
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

    /// Whether `client` has a token left at `now`, taking none; `Refused`
    /// says when it will.
    pub fn peek(&self, client: ClientKey, now: Instant) -> AddressDecision {
        let Some(rate) = self.rate else {
            return AddressDecision::Allowed;
        };
        let gcra = Gcra::new(rate);
        let now_us = self.micros(now);
        if now_us - self.last_taken_us.load(Ordering::Relaxed) > gcra.tolerance_us() {
            return AddressDecision::Allowed;
        }
        let Some(bucket) = self.buckets.get(&client) else {
            return AddressDecision::Allowed;
        };
        let tat = *bucket.lock().unwrap_or_else(PoisonError::into_inner);
        match gcra.decision(gcra.step((tat != i64::MIN).then_some(tat), now_us)) {
            RateDecision::Allowed { .. } => AddressDecision::Allowed,
            RateDecision::Refused { retry_after_secs } => AddressDecision::Refused { retry_after_secs },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::*;

    fn key(s: &str) -> ClientKey {
        ClientKey::from(s.parse::<IpAddr>().unwrap_or(IpAddr::from([0, 0, 0, 0])))
    }

    #[test]
    fn an_address_gets_its_burst_then_waits_for_tokens_and_others_are_unaffected() {
        let limiter = AddressLimiter::new(4, 4);
        let (a, b) = (key("10.0.0.1"), key("10.0.0.2"));
        let t0 = Instant::now();
        for _ in 0..4 {
            assert_eq!(limiter.check(a, t0), AddressDecision::Allowed);
        }
        assert_eq!(limiter.check(a, t0), AddressDecision::Refused { retry_after_secs: 1 });
        assert_eq!(limiter.check(b, t0), AddressDecision::Allowed);
        // A quarter second later one token is back, and only one.
        let t1 = t0 + Duration::from_millis(250);
        assert_eq!(limiter.check(a, t1), AddressDecision::Allowed);
        assert!(matches!(limiter.check(a, t1), AddressDecision::Refused { .. }));
    }

    #[test]
    fn peeking_takes_nothing() {
        let limiter = AddressLimiter::new(20, 2);
        let a = key("10.0.0.1");
        let t0 = Instant::now();
        assert_eq!(limiter.peek(a, t0), AddressDecision::Allowed);
        limiter.check(a, t0);
        assert_eq!(limiter.peek(a, t0), AddressDecision::Allowed);
        assert_eq!(limiter.peek(a, t0), AddressDecision::Allowed);
        limiter.check(a, t0);
        assert_eq!(limiter.peek(a, t0), AddressDecision::Refused { retry_after_secs: 1 });
        // A token comes back every 50 ms; once every bucket is full again
        // (100 ms after the last token taken) peeking needs no lookup.
        assert_eq!(
            limiter.peek(a, t0 + Duration::from_millis(49)),
            AddressDecision::Refused { retry_after_secs: 1 }
        );
        assert_eq!(
            limiter.peek(a, t0 + Duration::from_millis(50)),
            AddressDecision::Allowed
        );
        assert_eq!(
            limiter.peek(a, t0 + Duration::from_millis(101)),
            AddressDecision::Allowed
        );
    }

    #[test]
    fn a_refunded_token_is_back_at_once_and_only_taken_tokens_come_back() {
        let limiter = AddressLimiter::new(20, 2);
        let (a, b) = (key("10.0.0.1"), key("10.0.0.2"));
        let t0 = Instant::now();
        assert!(limiter.quiet(t0));
        assert_eq!(limiter.check(a, t0), AddressDecision::Allowed);
        assert!(!limiter.quiet(t0));
        assert_eq!(limiter.check(a, t0), AddressDecision::Allowed);
        assert!(matches!(limiter.check(a, t0), AddressDecision::Refused { .. }));
        limiter.refund(a);
        assert_eq!(limiter.check(a, t0), AddressDecision::Allowed);
        assert!(matches!(limiter.check(a, t0), AddressDecision::Refused { .. }));
        // A bucket never taken from gains nothing from a refund.
        limiter.refund(b);
        assert_eq!(limiter.check(b, t0), AddressDecision::Allowed);
        assert_eq!(limiter.check(b, t0), AddressDecision::Allowed);
        assert!(matches!(limiter.check(b, t0), AddressDecision::Refused { .. }));
        // 2 tokens of 50 ms each: quiet 100 ms after the last one taken.
        assert!(!limiter.quiet(t0 + Duration::from_millis(100)));
        assert!(limiter.quiet(t0 + Duration::from_millis(101)));
    }

    #[test]
    fn addresses_of_one_ipv6_slash_64_share_a_bucket() {
        let limiter = AddressLimiter::new(1, 1);
        let t0 = Instant::now();
        assert_eq!(limiter.check(key("2001:db8:0:1::1"), t0), AddressDecision::Allowed);
        assert!(matches!(
            limiter.check(key("2001:db8:0:1:ffff::2"), t0),
            AddressDecision::Refused { .. }
        ));
        assert_eq!(limiter.check(key("2001:db8:0:2::1"), t0), AddressDecision::Allowed);
    }

    #[test]
    fn a_rate_of_zero_turns_the_limit_off() {
        let limiter = AddressLimiter::new(0, 0);
        let a = key("10.0.0.1");
        let t0 = Instant::now();
        assert!((0..1000).all(|_| limiter.check(a, t0) == AddressDecision::Allowed));
    }
}
