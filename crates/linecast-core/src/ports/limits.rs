//! The limits port: the per-key rate limit and the per-customer monthly
//! quota, decided and counted atomically.
//!
//! The rate limit is a token bucket in its GCRA form: `Rate::per_second`
//! calls per second sustained, bursts of up to `Rate::burst`. Its time is the
//! caller's `now`; an adapter stores one timestamp per key (the bucket's
//! theoretical arrival time), never a counter per second. Per month, the UTC
//! calendar month (`Month`).
//!
//! Order of use on a request: `check_rate` first (a refusal is a 429 with
//! `Retry-After` and is not counted), then `try_count_month` (an `Exhausted`
//! answer is a 429 and is not counted). Counted requests reach the
//! `UsageMeter` write-behind, per customer and UTC day (the month is the
//! day's): `flush` persists them, and must be called on graceful shutdown.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::accounts::AccountsError;
use crate::quota_calendar::{Day, Month};

/// A per-key rate: `per_second` calls per second sustained, and up to
/// `burst` calls at once after a quiet spell. Both are at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub per_second: u32,
    pub burst: u32,
}

/// Outcome of the rate check for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateDecision {
    /// Admitted. `remaining`: calls the key could make right now after this
    /// one; `full_in_secs`: whole seconds (rounded up) until the bucket is
    /// full again if no other call comes.
    Allowed { remaining: u32, full_in_secs: u64 },
    /// The bucket is empty; nothing was taken. `retry_after_secs` is the
    /// `Retry-After` value: whole seconds (rounded up, at least 1) until the
    /// next call would be admitted.
    Refused { retry_after_secs: u64 },
}

/// Outcome of counting one request against the monthly quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MonthDecision {
    /// The request was counted; `used` includes it.
    Counted { used: u64 },
    /// The month is used up; nothing was counted. `used` is the count so far.
    Exhausted { used: u64 },
    /// Nothing was counted: what is left of the month is leased to other
    /// instances (a shared limiter), which give unused allowance back within
    /// `retry_after_secs`.
    Held { used: u64, retry_after_secs: u64 },
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
    /// Takes one call from `key_id`'s bucket at `now` under `rate`, or
    /// refuses it (taking nothing) when the bucket is empty. Check and take
    /// are one atomic step, shared by every instance using the same store.
    async fn check_rate(&self, key_id: i64, rate: Rate, now: DateTime<Utc>) -> Result<RateDecision, LimitsError>;

    /// Counts one request on `day` against the quota of the day's month
    /// (`month_of_day`) if fewer than `limit` were counted that month; check
    /// and increment are one atomic step, so concurrent callers never pass
    /// the limit, and no increment is lost or doubled. The count reaches the
    /// meter's monthly and daily counters through the same write-behind
    /// batch. A refused request is not counted.
    async fn try_count_month(&self, customer_id: i64, day: Day, limit: u64) -> Result<MonthDecision, LimitsError>;

    /// [`Limiter::check_rate`], answered without waiting by a limiter that
    /// holds the bucket itself (in process). `None` means it cannot: ask
    /// `check_rate`. When `Some`, the call was taken or refused exactly as
    /// `check_rate` would have, so the caller must not ask again.
    fn check_rate_at_once(
        &self,
        _key_id: i64,
        _rate: Rate,
        _now: DateTime<Utc>,
    ) -> Option<Result<RateDecision, LimitsError>> {
        None
    }

    /// [`Limiter::try_count_month`], answered without waiting when the
    /// month's count is loaded and nobody else is counting it. `None`
    /// means nothing was counted: ask `try_count_month`. When `Some`, the
    /// request was counted (or refused) exactly as `try_count_month` would
    /// have, so the caller must not ask again.
    fn try_count_month_at_once(
        &self,
        _customer_id: i64,
        _day: Day,
        _limit: u64,
    ) -> Option<Result<MonthDecision, LimitsError>> {
        None
    }

    /// The month's count as `/me/usage` shows it: persisted plus counted but
    /// not yet flushed.
    async fn month_usage(&self, customer_id: i64, month: Month) -> Result<u64, LimitsError>;

    /// Persists pending increments to the usage meter. Called periodically
    /// and on graceful shutdown; on failure the increments stay pending.
    async fn flush(&self) -> Result<(), LimitsError>;

    /// Gives back whatever this instance holds of shared limits (leased
    /// allowance), on graceful shutdown before the last `flush`. Limiters
    /// that lease nothing have nothing to do.
    async fn release(&self) -> Result<(), LimitsError> {
        Ok(())
    }

    /// Whether the store the limits are shared through (Redis) answers;
    /// `Ok` at once for a limiter that holds everything in process.
    async fn ping(&self) -> Result<(), LimitsError> {
        Ok(())
    }
}
