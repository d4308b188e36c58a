//! The write-behind buffer shared by both adapters: counted requests wait
//! here, per customer and UTC day, until a flush moves them to the
//! `UsageMeter` in one batch (which adds each to its day and to the day's
//! month: one buffer and one write for both counters).
//!
//! Invariant: every counted increment is either in the buffer, in the batch
//! of the one running flush, or committed by the meter. A failed (or
//! cancelled) flush puts its batch back, so nothing is dropped. The batch is
//! assumed all-or-nothing (the meter writes it in one transaction); a commit
//! whose acknowledgement is lost would be retried and counted twice, the one
//! case this cannot rule out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use linecast_core::ports::limits::LimitsError;
use linecast_core::quota_calendar::month_of_day;
use linecast_core::{Day, Month, UsageMeter};

type Pending = HashMap<(i64, Day), u64>;

pub(crate) struct WriteBehind {
    meter: Arc<dyn UsageMeter>,
    pending: Mutex<Pending>,
    /// One flush at a time, so "pending is empty and no flush is running"
    /// means the meter holds every count (the in-process limiter relies on it
    /// to drop old months).
    flushing: tokio::sync::Mutex<()>,
}

impl WriteBehind {
    pub(crate) fn new(meter: Arc<dyn UsageMeter>) -> Self {
        Self {
            meter,
            pending: Mutex::new(HashMap::new()),
            flushing: tokio::sync::Mutex::new(()),
        }
    }

    pub(crate) fn meter(&self) -> &Arc<dyn UsageMeter> {
        &self.meter
    }

    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn record(&self, customer_id: i64, day: Day, n: u64) {
        merge(&mut self.lock(), [((customer_id, day), n)]);
    }

    /// Buffered (not yet flushed) increments for one customer-month, over
    /// its days. Not on the request path: only a limiter seeding a count or
    /// retiring a month asks, and the buffer holds one second's days.
    pub(crate) fn pending_for(&self, customer_id: i64, month: Month) -> u64 {
        self.lock()
            .iter()
            .filter(|&(&(c, day), _)| c == customer_id && month_of_day(day) == month)
            .fold(0, |a, (_, n)| a.saturating_add(*n))
    }

    /// Buffered increments over every customer-month.
    pub(crate) fn pending_total(&self) -> u64 {
        self.lock().values().fold(0, |a, n| a.saturating_add(*n))
    }

    /// Moves the buffer to the meter; on failure the batch is buffered again.
    /// Returns the flush lock still held, so the caller can act while no other
    /// flush can take increments out of the buffer.
    pub(crate) async fn flush(&self) -> Result<tokio::sync::MutexGuard<'_, ()>, LimitsError> {
        let running = self.flushing.lock().await;
        let batch = std::mem::take(&mut *self.lock());
        if batch.is_empty() {
            return Ok(running);
        }
        let increments: Vec<(i64, Day, u64)> = batch.iter().map(|(&(c, d), &n)| (c, d, n)).collect();
        let mut restore = Restore {
            buffer: self,
            batch: Some(batch),
        };
        self.meter.add_usage_batch(&increments).await?;
        restore.batch = None;
        Ok(running)
    }
}

/// Puts a taken batch back unless the meter accepted it: runs on error and if
/// the flush future is dropped mid-write.
struct Restore<'a> {
    buffer: &'a WriteBehind,
    batch: Option<Pending>,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        if let Some(batch) = self.batch.take() {
            merge(&mut self.buffer.lock(), batch);
        }
    }
}

fn merge(into: &mut Pending, from: impl IntoIterator<Item = ((i64, Day), u64)>) {
    for (k, n) in from {
        let slot = into.entry(k).or_insert(0);
        *slot = slot.saturating_add(n);
    }
}
