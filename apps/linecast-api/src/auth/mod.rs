//! Authentication and limits for every `/api/v1` route that needs a key.
//!
//! Order of checks, each with its status: no key (401 `API key required`),
//! unknown/revoked/expired key (401 `Invalid or expired API key`), accounts
//! database down (503, never 401), no active subscription or plan (403),
//! per-second limit (429 + `Retry-After`, not counted), monthly quota (429,
//! not counted). A request that passes is counted exactly once, whatever its
//! outcome, and its response carries the `X-RateLimit-*` headers.

pub mod anonymous;
pub mod cache;
pub mod credentials;
pub mod middleware;

use chrono::{DateTime, Datelike, TimeZone, Utc};
use linecast_core::{ApiKeyRecord, Customer};

/// What a protected scope asks of its caller's key. Set where the scope is
/// registered (`crate::routes::register`), never derived from the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Any valid key on a plan with API access, whatever the state of the
    /// subscription: the spec's "any authenticated key" (markets) and "key"
    /// (`/picks/*`) routes, and the caller's own account and usage, which stay
    /// readable so a lapsed customer can see why data calls are refused.
    AnyKey,
    /// A valid key of a customer with an active subscription: the spec's
    /// "AI" routes, and the default for every protected route.
    Subscriber,
}

/// Per-second limit per key.
pub const PER_SECOND_LIMIT: u32 = 50;

/// Tiers that resolve to the `ai` product access.
pub const ACCEPTED_TIERS: [&str; 4] = ["ai", "data", "basic", "premium"];

/// Who is calling, attached to the request after authentication. It shares
/// the key cache's entry rather than copying the records on every request.
#[derive(Debug, Clone)]
pub struct AuthContext {
    pub(crate) entry: std::sync::Arc<(ApiKeyRecord, Customer)>,
    /// Requests counted this month, this one included.
    pub month_used: u64,
}

impl AuthContext {
    pub fn customer(&self) -> &Customer {
        &self.entry.1
    }

    pub fn key(&self) -> &ApiKeyRecord {
        &self.entry.0
    }
}

/// The quota window: the UTC calendar month of `now`.
pub fn month_of(now: DateTime<Utc>) -> (i32, u32) {
    (now.year(), now.month())
}

/// First instant of the next UTC month: `reset_date` and `X-RateLimit-Reset`.
pub fn next_reset(now: DateTime<Utc>) -> DateTime<Utc> {
    let (y, m) = if now.month() == 12 {
        (now.year() + 1, 1)
    } else {
        (now.year(), now.month() + 1)
    };
    Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).single().unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quota_resets_at_the_first_instant_of_the_next_utc_month() {
        let at = |s: &str| DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).ok();
        assert_eq!(
            Some(next_reset(at("2026-12-31T23:59:59Z").unwrap_or_default())),
            at("2027-01-01T00:00:00Z")
        );
        assert_eq!(
            Some(next_reset(at("2026-02-01T00:00:00Z").unwrap_or_default())),
            at("2026-03-01T00:00:00Z")
        );
        assert_eq!(month_of(at("2026-11-30T23:59:59Z").unwrap_or_default()), (2026, 11));
    }
}
