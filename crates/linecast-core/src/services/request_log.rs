//! The request log's use cases: the request path records each admitted
//! request into a bounded in-memory buffer (no I/O, no allocation past the
//! buffer's growth); the usage flush round moves the buffer to the store in
//! one batch, and prunes what is older than the retention once an hour; the
//! portal reads a customer's own requests back.
//!
//! Bounds: the buffer holds at most [`BUFFER_BOUND`] requests (past it a
//! request is dropped and counted, never waited for); the store keeps at
//! most [`DAILY_CAP`] rows per customer and UTC day (past it requests are
//! counted per day, not stored) and `retention_days` days.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, TimeDelta, Utc};

use crate::ports::accounts::AccountsError;
use crate::ports::request_log::{DayCount, DayTotals, LoggedRequest, RequestFilter, RequestLogStore, RequestRow};
use crate::quota_calendar::{Day, day_of};

/// Rows stored per customer and UTC day; requests past it are counted in
/// the day's totals, not stored.
pub const DAILY_CAP: u64 = 10_000;

/// Requests the in-memory buffer holds between two flushes (a flush a
/// second: 32,768 requests a second per instance, about 6 MiB). Past it a
/// request is not logged, and counted as dropped.
pub const BUFFER_BOUND: usize = 32_768;

/// Days kept by default (`LINECAST_REQUEST_LOG_DAYS`).
pub const DEFAULT_RETENTION_DAYS: u32 = 7;

/// How often the flush round deletes rows past the retention.
pub const PRUNE_EVERY: TimeDelta = TimeDelta::hours(1);

/// What the log of one customer holds, for the portal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestPage {
    /// The oldest instant shown (now minus the retention).
    pub since: DateTime<Utc>,
    /// The rows matching the filter, newest first, at most the asked limit.
    pub rows: Vec<RequestRow>,
    /// How many stored rows match the filter (may exceed `rows.len()`).
    pub matching: u64,
    pub per_key: Vec<DayCount<i64>>,
    pub per_route: Vec<DayCount<String>>,
    /// Days with requests, with what went past the cap.
    pub totals: Vec<DayTotals>,
}

/// The buffer, the store and its bounds.
pub struct RequestLog {
    store: Arc<dyn RequestLogStore>,
    buffer: Mutex<Vec<LoggedRequest>>,
    dropped: AtomicU64,
    retention_days: u32,
    last_prune: Mutex<Option<DateTime<Utc>>>,
    /// One flush at a time: when `flush` returns, every request recorded
    /// before it was called is stored (or back in the buffer).
    flushing: futures::lock::Mutex<()>,
}

impl RequestLog {
    pub fn new(store: Arc<dyn RequestLogStore>, retention_days: u32) -> Self {
        Self {
            store,
            buffer: Mutex::new(Vec::new()),
            dropped: AtomicU64::new(0),
            retention_days: retention_days.max(1),
            last_prune: Mutex::new(None),
            flushing: futures::lock::Mutex::new(()),
        }
    }

    pub fn retention_days(&self) -> u32 {
        self.retention_days
    }

    /// The request path's one step: keeps `request` for the next flush.
    /// Returns false when the buffer is full (the request is dropped and
    /// counted).
    pub fn record(&self, request: LoggedRequest) -> bool {
        let mut buffer = self.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        if buffer.len() >= BUFFER_BOUND {
            drop(buffer);
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        buffer.push(request);
        true
    }

    /// Requests dropped because the buffer was full, since start.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Requests waiting for the next flush.
    pub fn pending(&self) -> usize {
        self.buffer.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// One round: the buffer to the store in one batch (a failed batch goes
    /// back into the buffer, within its bound), then, once per
    /// [`PRUNE_EVERY`], rows past the retention out. Returns the requests
    /// written.
    pub async fn flush(&self, now: DateTime<Utc>) -> Result<usize, AccountsError> {
        let _running = self.flushing.lock().await;
        let batch = std::mem::take(&mut *self.buffer.lock().unwrap_or_else(PoisonError::into_inner));
        let written = batch.len();
        if !batch.is_empty()
            && let Err(e) = self.store.append_requests(&batch, DAILY_CAP).await
        {
            self.put_back(batch);
            return Err(e);
        }
        let due = {
            let last = self.last_prune.lock().unwrap_or_else(PoisonError::into_inner);
            last.is_none_or(|at| now - at >= PRUNE_EVERY)
        };
        if due {
            self.prune(now).await?;
        }
        Ok(written)
    }

    /// Deletes what is older than the retention, now.
    pub async fn prune(&self, now: DateTime<Utc>) -> Result<u64, AccountsError> {
        let deleted = self.store.prune_requests(self.since(now)).await?;
        *self.last_prune.lock().unwrap_or_else(PoisonError::into_inner) = Some(now);
        Ok(deleted)
    }

    fn put_back(&self, batch: Vec<LoggedRequest>) {
        let mut buffer = self.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        let room = BUFFER_BOUND.saturating_sub(buffer.len());
        let lost = batch.len().saturating_sub(room);
        // The older requests go first into the room; what does not fit is
        // dropped and counted.
        buffer.splice(0..0, batch.into_iter().take(room));
        drop(buffer);
        self.dropped.fetch_add(lost as u64, Ordering::Relaxed);
    }

    /// The oldest instant kept at `now`.
    pub fn since(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        now - TimeDelta::days(i64::from(self.retention_days))
    }

    /// The first UTC day shown at `now`.
    pub fn first_day(&self, now: DateTime<Utc>) -> Day {
        day_of(self.since(now))
    }

    /// The customer's requests within the retention matching `filter`
    /// (newest first, at most `limit`), with the per-day counts.
    pub async fn page(
        &self,
        customer_id: i64,
        filter: &RequestFilter,
        limit: u64,
        now: DateTime<Utc>,
    ) -> Result<RequestPage, AccountsError> {
        let since = self.since(now);
        let from = self.first_day(now);
        let rows = self.store.requests(customer_id, since, filter, limit).await?;
        let matching = if (rows.len() as u64) < limit {
            rows.len() as u64
        } else {
            self.store.count_requests(customer_id, since, filter).await?
        };
        let (per_key, per_route) = self.store.requests_per_day(customer_id, from).await?;
        // Every day stores at most the cap, so what it recorded past the cap
        // is what it did not store (pruning a day's first hours leaves it).
        let totals = self
            .store
            .requests_offered(customer_id, from)
            .await?
            .into_iter()
            .map(|(day, offered)| DayTotals {
                day,
                offered,
                over_cap: offered.saturating_sub(DAILY_CAP),
            })
            .collect();
        Ok(RequestPage {
            since,
            rows,
            matching,
            per_key,
            per_route,
            totals,
        })
    }

    /// Every stored request of the customer within the retention matching
    /// `filter`, newest first (the CSV download: at most the cap times the
    /// retention's days).
    pub async fn all(
        &self,
        customer_id: i64,
        filter: &RequestFilter,
        now: DateTime<Utc>,
    ) -> Result<Vec<RequestRow>, AccountsError> {
        let limit = DAILY_CAP.saturating_mul(u64::from(self.retention_days) + 1);
        self.store.requests(customer_id, self.since(now), filter, limit).await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::TimeZone;

    use super::*;
    use crate::ports::request_log::RequestId;
    use crate::testing::MemoryRequestLog;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap()
    }

    fn request(customer_id: i64, at: DateTime<Utc>) -> LoggedRequest {
        LoggedRequest {
            customer_id,
            key_id: 1,
            at,
            method: "GET",
            route: "/api/v1/games/{sport}",
            status: 200,
            duration_us: 10,
            request_id: RequestId::new("r1"),
        }
    }

    /// The buffer never holds more than its bound: past it a request is
    /// dropped and counted, and a flush empties it into the store.
    #[tokio::test]
    async fn a_full_buffer_drops_and_counts_and_a_flush_empties_it() {
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 7);
        for _ in 0..BUFFER_BOUND {
            assert!(log.record(request(1, now())));
        }
        assert!(!log.record(request(1, now())));
        assert!(!log.record(request(1, now())));
        assert_eq!(log.dropped(), 2);
        assert_eq!(log.pending(), BUFFER_BOUND);
        assert_eq!(log.flush(now()).await.unwrap(), BUFFER_BOUND);
        assert_eq!(log.pending(), 0);
        // The cap kept DAILY_CAP rows and counted the rest.
        let page = log.page(1, &RequestFilter::default(), 10, now()).await.unwrap();
        assert_eq!(page.matching, DAILY_CAP);
        assert_eq!(page.totals[0].offered, BUFFER_BOUND as u64);
        assert_eq!(page.totals[0].over_cap, BUFFER_BOUND as u64 - DAILY_CAP);
    }

    /// A batch the store refused is written by the next round, once.
    #[tokio::test]
    async fn a_failed_flush_keeps_the_batch_for_the_next_round() {
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 7);
        log.record(request(1, now()));
        store.set_down(true);
        assert!(log.flush(now()).await.is_err());
        assert_eq!(log.pending(), 1);
        store.set_down(false);
        assert_eq!(log.flush(now()).await.unwrap(), 1);
        assert_eq!(log.flush(now()).await.unwrap(), 0);
        let page = log.page(1, &RequestFilter::default(), 10, now()).await.unwrap();
        assert_eq!(page.rows.len(), 1);
    }

    /// Rows older than the retention are pruned by the round, at most once
    /// an hour.
    #[tokio::test]
    async fn the_round_prunes_past_the_retention_once_an_hour() {
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 2);
        log.record(request(1, now() - TimeDelta::days(3)));
        log.record(request(1, now() - TimeDelta::days(1)));
        // First round at an older instant: both are within its window.
        log.flush(now() - TimeDelta::days(1)).await.unwrap();
        assert_eq!(store.len(), 2);
        // Less than an hour later by the clock passed in: no prune.
        log.flush(now() - TimeDelta::days(1) + TimeDelta::minutes(59))
            .await
            .unwrap();
        assert_eq!(store.len(), 2);
        log.flush(now()).await.unwrap();
        assert_eq!(store.len(), 1);
    }
}
