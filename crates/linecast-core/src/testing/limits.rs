//! `MemoryLimiter`: the limiter port in memory: per key, a burst of calls per
//! instant of `now` (the rate at a frozen clock; the real bucket is
//! linecast-limits' GCRA), and monthly counts per customer, with no
//! write-behind.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ports::limits::{Limiter, LimitsError, MonthDecision, Rate, RateDecision};
use crate::quota_calendar::{Day, Month, month_of_day};

#[derive(Default)]
struct Inner {
    /// Calls per (key, instant in µs).
    calls: HashMap<(i64, i64), u32>,
    months: HashMap<(i64, Month), u64>,
    down: bool,
}

/// Rate bursts and monthly counts in memory.
#[derive(Default)]
pub struct MemoryLimiter {
    inner: Mutex<Inner>,
}

impl MemoryLimiter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Every call fails with `Unavailable` while `down`.
    pub fn set_down(&self, down: bool) {
        self.lock_raw().down = down;
    }

    /// Sets a customer's count for a month.
    pub fn set_month(&self, customer_id: i64, month: Month, used: u64) {
        self.lock_raw().months.insert((customer_id, month), used);
    }

    fn lock_raw(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock(&self) -> Result<MutexGuard<'_, Inner>, LimitsError> {
        let inner = self.lock_raw();
        if inner.down {
            return Err(LimitsError::Unavailable("memory limiter is down".to_owned()));
        }
        Ok(inner)
    }
}

#[async_trait]
impl Limiter for MemoryLimiter {
    async fn check_rate(&self, key_id: i64, rate: Rate, now: DateTime<Utc>) -> Result<RateDecision, LimitsError> {
        let mut inner = self.lock()?;
        let count = inner.calls.entry((key_id, now.timestamp_micros())).or_default();
        if *count >= rate.burst {
            return Ok(RateDecision::Refused { retry_after_secs: 1 });
        }
        *count += 1;
        Ok(RateDecision::Allowed {
            remaining: rate.burst - *count,
            full_in_secs: u64::from(count.div_ceil(rate.per_second.max(1))),
        })
    }

    async fn try_count_month(&self, customer_id: i64, day: Day, limit: u64) -> Result<MonthDecision, LimitsError> {
        let mut inner = self.lock()?;
        let used = inner.months.entry((customer_id, month_of_day(day))).or_default();
        if *used >= limit {
            return Ok(MonthDecision::Exhausted { used: *used });
        }
        *used += 1;
        Ok(MonthDecision::Counted { used: *used })
    }

    async fn month_usage(&self, customer_id: i64, month: Month) -> Result<u64, LimitsError> {
        Ok(self.lock()?.months.get(&(customer_id, month)).copied().unwrap_or(0))
    }

    async fn flush(&self) -> Result<(), LimitsError> {
        self.lock().map(|_| ())
    }
}
