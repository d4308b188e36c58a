//! Token buckets by client address: the per-address limit of the public
//! data routes (see `auth::anonymous` for the middleware that applies it and
//! for how the address is chosen).

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::dev::ServiceRequest;
use moka::sync::Cache;

/// Token buckets by client address.
pub struct AddressLimiter {
    /// Tokens added per second, and the bucket size (the allowed burst).
    pub(crate) rate: f64,
    /// Header naming the client address, set by a trusted balancer.
    client_ip_header: Option<String>,
    buckets: Cache<IpAddr, Arc<Mutex<Bucket>>>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// One address's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressDecision {
    Allowed,
    Refused { retry_after_secs: u64 },
}

impl AddressLimiter {
    /// `per_second` of 0 turns the limit off.
    pub fn new(per_second: u32, client_ip_header: Option<String>) -> Self {
        Self {
            rate: f64::from(per_second),
            client_ip_header: client_ip_header.map(|h| h.to_ascii_lowercase()),
            buckets: Cache::builder()
                .max_capacity(200_000)
                // An idle bucket refills completely within a second or so;
                // dropping it after a minute changes nothing.
                .time_to_idle(Duration::from_mins(1))
                .build(),
        }
    }

    /// Takes one token from `addr`'s bucket at `now`.
    pub fn check(&self, addr: IpAddr, now: Instant) -> AddressDecision {
        if self.rate <= 0.0 {
            return AddressDecision::Allowed;
        }
        let bucket = self.buckets.get_with(addr, || {
            Arc::new(Mutex::new(Bucket {
                tokens: self.rate,
                at: now,
            }))
        });
        let Ok(mut b) = bucket.lock() else {
            return AddressDecision::Allowed;
        };
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * self.rate).min(self.rate);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            AddressDecision::Allowed
        } else {
            let wait = (1.0 - b.tokens) / self.rate;
            AddressDecision::Refused {
                retry_after_secs: (wait.ceil() as u64).max(1),
            }
        }
    }

    /// The client address of `req` (see the module docs).
    pub fn client_address(&self, req: &ServiceRequest) -> Option<IpAddr> {
        if let Some(header) = &self.client_ip_header {
            let last = req
                .headers()
                .get_all(header.as_str())
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .filter_map(|s| s.trim().parse::<IpAddr>().ok())
                .last();
            if last.is_some() {
                return last;
            }
        }
        req.peer_addr().map(|a| a.ip())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_its_burst_then_waits_for_tokens_and_others_are_unaffected() {
        let limiter = AddressLimiter::new(4, None);
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
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
    fn a_rate_of_zero_turns_the_limit_off() {
        let limiter = AddressLimiter::new(0, None);
        let a: IpAddr = [10, 0, 0, 1].into();
        let t0 = Instant::now();
        assert!((0..1000).all(|_| limiter.check(a, t0) == AddressDecision::Allowed));
    }
}
