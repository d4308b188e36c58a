//! `InProcessLimiter`: both limits counted in this process's memory, for a
//! single API instance. Monthly counts start from the persisted count and are
//! written behind to the `UsageMeter`.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::ports::limits::{Limiter, LimitsError, MonthDecision, Rate, RateDecision};
use linecast_core::quota_calendar::month_of_day;
use linecast_core::{Day, Month, UsageMeter};

use crate::buckets::RateBuckets;
use crate::write_behind::WriteBehind;

/// A single instance's limiter. Correct only while one process serves a
/// customer: two of them would each load the persisted count and count on
/// their own (use `RedisLimiter` to scale out).
pub struct InProcessLimiter {
    rates: RateBuckets,
    months: Mutex<foldhash::HashMap<(i64, Month), Arc<MonthSlot>>>,
    buffer: WriteBehind,
}

/// One customer-month. Its async lock makes the first load single-flight
/// (later callers wait for it) and makes check-and-increment one step.
#[derive(Default)]
struct MonthSlot {
    state: tokio::sync::Mutex<SlotState>,
}

#[derive(Default)]
struct SlotState {
    /// Persisted count at load plus everything counted here since; `None`
    /// until loaded (a failed load leaves it `None` for the next caller).
    used: Option<u64>,
    /// Set when the slot leaves the map; a caller that still holds it must
    /// look the month up again.
    retired: bool,
}

impl InProcessLimiter {
    pub fn new(meter: Arc<dyn UsageMeter>) -> Self {
        Self {
            rates: RateBuckets::new(),
            months: Mutex::new(foldhash::HashMap::default()),
            buffer: WriteBehind::new(meter),
        }
    }

    /// Spawns the periodic flush (see [`crate::spawn_flusher`]).
    pub fn spawn_flusher(self: Arc<Self>, every: Duration) -> crate::Flusher {
        crate::spawn_flusher(self, every)
    }

    /// Counted increments not yet persisted (for metrics and readiness).
    pub fn pending_increments(&self) -> u64 {
        self.buffer.pending_total()
    }

    fn months(&self) -> MutexGuard<'_, foldhash::HashMap<(i64, Month), Arc<MonthSlot>>> {
        self.months.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn slot(&self, customer_id: i64, month: Month) -> Arc<MonthSlot> {
        Arc::clone(self.months().entry((customer_id, month)).or_default())
    }

    /// Runs `f` on the loaded count of a customer-month, under its lock.
    async fn with_month<T>(
        &self,
        customer_id: i64,
        month: Month,
        f: impl FnOnce(&mut u64) -> T,
    ) -> Result<T, LimitsError> {
        loop {
            let slot = self.slot(customer_id, month);
            let mut state = slot.state.lock().await;
            if state.retired {
                continue;
            }
            let mut used = match state.used {
                Some(used) => used,
                None => self.buffer.meter().get_usage(customer_id, month).await?,
            };
            let out = f(&mut used);
            state.used = Some(used);
            return Ok(out);
        }
    }

    /// One request against a loaded month count `used`, under its slot's
    /// lock: counted and buffered while under `limit`, else refused.
    fn count(&self, customer_id: i64, day: Day, limit: u64, used: &mut u64) -> MonthDecision {
        if *used >= limit {
            return MonthDecision::Exhausted { used: *used };
        }
        *used += 1;
        // Buffered under the slot lock, so a slot is never retired
        // between counting and buffering.
        self.buffer.record(customer_id, day, 1);
        MonthDecision::Counted { used: *used }
    }

    /// Drops slots of months older than the newest one seen, once all their
    /// counts are persisted, so memory does not grow month after month.
    /// Must run while the caller holds the flush lock with the buffer just
    /// flushed, so "nothing pending" means "all in the meter".
    fn retire_old_months(&self) {
        let mut months = self.months();
        let Some(newest) = months.keys().map(|&(_, m)| m).max() else {
            return;
        };
        months.retain(|&(customer_id, month), slot| {
            if month >= newest {
                return true;
            }
            // Busy slots are kept for the next flush rather than waited for.
            let Ok(mut state) = slot.state.try_lock() else {
                return true;
            };
            // Checked under the slot lock: counting buffers under that lock.
            if self.buffer.pending_for(customer_id, month) > 0 {
                return true;
            }
            state.retired = true;
            false
        });
    }
}

#[async_trait]
impl Limiter for InProcessLimiter {
    async fn check_rate(&self, key_id: i64, rate: Rate, now: DateTime<Utc>) -> Result<RateDecision, LimitsError> {
        Ok(self.rates.check(key_id, rate, now))
    }

    async fn try_count_month(&self, customer_id: i64, day: Day, limit: u64) -> Result<MonthDecision, LimitsError> {
        self.with_month(customer_id, month_of_day(day), |used| {
            self.count(customer_id, day, limit, used)
        })
        .await
    }

    fn check_rate_at_once(
        &self,
        key_id: i64,
        rate: Rate,
        now: DateTime<Utc>,
    ) -> Option<Result<RateDecision, LimitsError>> {
        Some(Ok(self.rates.check(key_id, rate, now)))
    }

    /// Counts at once when the month is loaded and its lock is free (the
    /// usual request); otherwise counts nothing, for `try_count_month` to
    /// wait for the lock or the load.
    fn try_count_month_at_once(
        &self,
        customer_id: i64,
        day: Day,
        limit: u64,
    ) -> Option<Result<MonthDecision, LimitsError>> {
        let slot = self.slot(customer_id, month_of_day(day));
        let mut state = slot.state.try_lock().ok()?;
        if state.retired {
            return None;
        }
        let used = state.used.as_mut()?;
        Some(Ok(self.count(customer_id, day, limit, used)))
    }

    async fn month_usage(&self, customer_id: i64, month: Month) -> Result<u64, LimitsError> {
        self.with_month(customer_id, month, |used| *used).await
    }

    async fn flush(&self) -> Result<(), LimitsError> {
        let _running = self.buffer.flush().await?;
        self.retire_old_months();
        Ok(())
    }
}
