//! Token buckets by client address (`ClientKey`: an IPv4 address or an IPv6
//! /64), in process: linecast-limits' `KeyedLimiter` by address. Two of
//! them: the per-address limit of the public data routes (`auth::anonymous`)
//! and the limit on failed key checks (`auth::middleware`). With N
//! instances behind a balancer an address gets at most N times the rate
//! (docs/operations.md).

use linecast_limits::{KeyedDecision, KeyedLimiter};

use super::client_address::ClientKey;

/// Token buckets by client address.
pub type AddressLimiter = KeyedLimiter<ClientKey>;

/// One address's decision.
pub type AddressDecision = KeyedDecision;

/// The most addresses whose buckets are kept at once.
const MAX_ADDRESSES: u64 = 200_000;

/// `per_second` calls sustained and `burst` at once per address; a
/// `per_second` of 0 turns the limit off.
pub fn by_address(per_second: u32, burst: u32) -> AddressLimiter {
    KeyedLimiter::new(per_second, burst, MAX_ADDRESSES)
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;
    use std::time::Instant;

    use super::*;

    fn key(s: &str) -> ClientKey {
        ClientKey::from(s.parse::<IpAddr>().unwrap_or(IpAddr::from([0, 0, 0, 0])))
    }

    #[test]
    fn addresses_of_one_ipv6_slash_64_share_a_bucket() {
        let limiter = by_address(1, 1);
        let t0 = Instant::now();
        assert_eq!(limiter.check(key("2001:db8:0:1::1"), t0), AddressDecision::Allowed);
        assert!(matches!(
            limiter.check(key("2001:db8:0:1:ffff::2"), t0),
            AddressDecision::Refused { .. }
        ));
        assert_eq!(limiter.check(key("2001:db8:0:2::1"), t0), AddressDecision::Allowed);
    }
}
