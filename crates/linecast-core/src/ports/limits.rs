//! The limits port: the per-key per-second limit and the per-customer monthly
//! quota, decided and counted atomically.
//!
//! Windows: per second, fixed windows of one Unix second taken from the
//! caller's `now` (a burst may straddle two windows, so up to twice the limit
//! can pass in any sliding second; the spec's "50 requests per second" is read
//! as per calendar second). Per month, the UTC calendar month (`Month`).
//!
//! Order of use on a request: `check_second` first (a refusal is a 429 with
//! `Retry-After` and is not counted), then `try_count_month` (an `Exhausted`
//! answer is a 429 and is not counted). Counted requests reach the
//! `UsageMeter` write-behind: `flush` persists them, and must be called on
//! graceful shutdown.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::accounts::{AccountsError, Month};

/// Outcome of the per-second check for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecondDecision {
    Allowed,
    /// The key used its allowance for this second; `retry_after_secs` is the
    /// `Retry-After` value (whole seconds until the next window, at least 1).
    Refused {
        retry_after_secs: u64,
    },
}

/// Outcome of counting one request against the monthly quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MonthDecision {
    /// The request was counted; `used` includes it.
    Counted { used: u64 },
    /// The month is used up; nothing was counted. `used` is the count so far.
    Exhausted { used: u64 },
}

/// Failure of a limits operation. A limiter that cannot decide never allows
/// by default: the HTTP layer answers 503.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitsError {
    /// The counter store (Redis) or the usage database failed; the cause is
    /// for logs.
    #[error("limits unavailable: {0}")]
    Unavailable(String),
}

impl From<AccountsError> for LimitsError {
    fn from(e: AccountsError) -> Self {
        LimitsError::Unavailable(format!("usage meter: {e}"))
    }
}

/// Per-second limits and the monthly quota.
#[async_trait]
pub trait Limiter: Send + Sync {
    /// Counts one request of `key_id` in the one-second window holding `now`
    /// and refuses it once more than `limit` were seen in that window.
    async fn check_second(&self, key_id: i64, limit: u32, now: DateTime<Utc>) -> Result<SecondDecision, LimitsError>;

    /// Counts one request for the customer's month if fewer than `limit` were
    /// counted; check and increment are one atomic step, so concurrent callers
    /// never pass the limit, and no increment is lost or doubled. A refused
    /// request is not counted.
    async fn try_count_month(&self, customer_id: i64, month: Month, limit: u64) -> Result<MonthDecision, LimitsError>;

    /// The month's count as `/me/usage` shows it: persisted plus counted but
    /// not yet flushed.
    async fn month_usage(&self, customer_id: i64, month: Month) -> Result<u64, LimitsError>;

    /// Persists pending increments to the usage meter. Called periodically
    /// and on graceful shutdown; on failure the increments stay pending.
    async fn flush(&self) -> Result<(), LimitsError>;
}
