//! The request log's use cases: the request path records each admitted
//! request into a bounded in-memory buffer (no I/O, no allocation past the
//! buffer's growth); the usage flush round moves the buffer to the store in
//! one batch once its oldest request has waited [`HOLD_FOR`] (or the buffer
//! is nearly full: the request that fills it to [`WRITE_AT`] wakes the
//! round, [`RequestLog::filled`]), and prunes what is older than the
//! retention once an hour;
//! the portal reads a customer's own requests back.
//!
//! The buffer is in shards, one per worker thread
//! ([`RequestLog::with_shards`]): each thread pushes into its own, behind
//! its own lock on its own cache lines, so the workers never hand a line
//! back and forth between cores on the request path; the round merges the
//! shards into one batch by instant.
//!
//! Bounds: the buffer holds at most [`BUFFER_BOUND`] requests, shared
//! equally by its shards (past a shard's share a request is dropped and
//! counted, never waited for); the store keeps at
//! most [`DAILY_CAP`] rows per customer and UTC day (past it requests are
//! counted per day, not stored) and `retention_days` days.
//!
//! Why the hold: the store writes one segment per customer-day a batch, and
//! a segment's own cost (its day's upsert, its row, two index entries)
//! outweighs its requests' when it holds a second's worth of one
//! customer's; held batches make segments fuller (four times, measured at
//! 55,000 to 64,000 requests a second, where the buffer's bound ends the
//! hold before the 10 s; bench/RESULTS.md). The
//! price: the portal shows a request up to [`HOLD_FOR`] plus a round
//! late, and a crash loses up to that much of the log (never of the usage
//! counts, which keep their own round).

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};
use futures::task::AtomicWaker;

use crate::ports::accounts::AccountsError;
use crate::ports::request_log::{DayCount, DayTotals, LoggedRequest, RequestFilter, RequestLogStore, RequestRow};
use crate::quota_calendar::{Day, day_of};

/// Rows stored per customer and UTC day; requests past it are counted in
/// the day's totals, not stored.
pub const DAILY_CAP: u64 = 10_000;

/// Requests the in-memory buffer holds between two writes, over all its
/// shards (16 MiB at 64 bytes a request; the batch being written is a
/// second buffer of the same bound, and with more than one shard the
/// merged batch a third). Past it a request is not logged, and counted as
/// dropped. Why this many: at a saturated instance's rate the bound, not
/// the hold, ends a batch, and a stored row's share of its segment's own
/// cost falls with the rows a segment holds (against half this bound,
/// segments hold twice the rows and the store alone spends 14% less a
/// row: `bench/RESULTS.md`, "Twice the buffer").
pub const BUFFER_BOUND: usize = 262_144;

/// Room left for the requests that arrive while a full buffer waits for
/// its write: the buffer is written, however young, once less than this is
/// free ([`WRITE_AT`]). The request that fills it to there wakes the flush
/// round ([`RequestLog::filled`]) instead of waiting for the round's next
/// second, so requests are dropped only when more than this arrive while
/// the round finishes what it is doing and swaps the buffer out.
pub const ROUND_ROOM: usize = 32_768;

/// Requests in the buffer at which it is written, however young.
pub const WRITE_AT: usize = BUFFER_BOUND - ROUND_ROOM;

/// Shards at most, whatever the workers: the round merges the shards by
/// looking at each one's next request, so a row costs the round a
/// comparison per shard. Past it, threads share shards.
pub const MAX_SHARDS: usize = 16;

/// How long the round leaves requests in the buffer before writing them:
/// measured from the round that first found the buffer non-empty, so a
/// request waits at most this plus a round.
pub const HOLD_FOR: Duration = Duration::from_secs(10);

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

/// One shard of the buffer: the requests of the threads whose number
/// falls to it. Aligned to two cache lines (a core fetches lines in
/// pairs), so no two shards' locks or lengths share a line.
#[derive(Default)]
#[repr(align(128))]
struct Shard {
    buffer: Mutex<Vec<LoggedRequest>>,
    /// The shard's last written requests' allocation, emptied: the next
    /// flush swaps it in as the buffer, so the request path pushes into
    /// memory already grown and touched (growing a fresh buffer to the
    /// bound every second cost the workers about 1% in page faults and
    /// copies).
    spare: Mutex<Vec<LoggedRequest>>,
}

/// The calling thread's number: 0 for the first thread that asks, then
/// 1, 2, .... A server's workers are the only threads that record, so
/// `n` workers take the first `n` numbers and each its own shard. Not a
/// memo (`crate::memo`): nothing is computed, a thread is named once.
fn thread_number() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static NUMBER: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    NUMBER.with(|n| *n)
}

/// The buffer, the store and its bounds.
pub struct RequestLog {
    store: Arc<dyn RequestLogStore>,
    shards: Box<[Shard]>,
    /// Requests a shard holds at most: [`BUFFER_BOUND`] over the shards.
    shard_bound: usize,
    /// Requests in a shard at which the buffer is written:
    /// [`ROUND_ROOM`] over the shards short of its bound.
    shard_write_at: usize,
    /// With more than one shard, the merged batch's allocation, emptied
    /// after its write and reused by the next merge.
    merged: Mutex<Vec<LoggedRequest>>,
    dropped: AtomicU64,
    retention_days: u32,
    last_prune: Mutex<Option<DateTime<Utc>>>,
    /// How long requests wait in the buffer ([`HOLD_FOR`]).
    hold_for: Duration,
    /// When a round first found the buffer non-empty since the last write
    /// (the round's own instant: a request is at most a round older).
    held_since: Mutex<Option<Instant>>,
    /// One flush at a time: when `write` returns, every request recorded
    /// before it was called is stored (or back in the buffer).
    flushing: futures::lock::Mutex<()>,
    /// Set by the request that fills a shard to its write mark, taken by
    /// [`RequestLog::filled`], whose task `wake` wakes.
    filled: AtomicBool,
    wake: AtomicWaker,
}

impl RequestLog {
    pub fn new(store: Arc<dyn RequestLogStore>, retention_days: u32) -> Self {
        Self {
            store,
            shards: Box::new([Shard::default()]),
            shard_bound: BUFFER_BOUND,
            shard_write_at: WRITE_AT,
            merged: Mutex::new(Vec::new()),
            dropped: AtomicU64::new(0),
            retention_days: retention_days.max(1),
            last_prune: Mutex::new(None),
            hold_for: HOLD_FOR,
            held_since: Mutex::new(None),
            flushing: futures::lock::Mutex::new(()),
            filled: AtomicBool::new(false),
            wake: AtomicWaker::new(),
        }
    }

    /// The same log, holding requests `hold_for` instead of [`HOLD_FOR`].
    #[must_use]
    pub fn holding_for(mut self, hold_for: Duration) -> Self {
        self.hold_for = hold_for;
        self
    }

    /// The same log, its buffer in `shards` shards (1 to [`MAX_SHARDS`]):
    /// one per worker thread, so each pushes into its own. Each holds
    /// [`BUFFER_BOUND`] over the shards and is written once it has
    /// [`ROUND_ROOM`] over the shards left.
    #[must_use]
    pub fn with_shards(mut self, shards: usize) -> Self {
        let n = shards.clamp(1, MAX_SHARDS);
        self.shards = (0..n).map(|_| Shard::default()).collect();
        self.shard_bound = BUFFER_BOUND / n;
        self.shard_write_at = self.shard_bound - ROUND_ROOM / n;
        self
    }

    pub fn retention_days(&self) -> u32 {
        self.retention_days
    }

    /// The request path's one step: keeps `request` for the next flush, in
    /// the calling thread's shard. Returns false when that shard is full
    /// (the request is dropped and counted).
    pub fn record(&self, request: LoggedRequest) -> bool {
        self.record_in(thread_number(), request)
    }

    /// [`Self::record`] into shard `number` (modulo the shards).
    fn record_in(&self, number: usize, request: LoggedRequest) -> bool {
        let shard = &self.shards[number % self.shards.len()];
        let mut buffer = shard.buffer.lock().unwrap_or_else(PoisonError::into_inner);
        if buffer.len() >= self.shard_bound {
            drop(buffer);
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        buffer.push(request);
        let filled = buffer.len() == self.shard_write_at;
        drop(buffer);
        if filled {
            self.filled.store(true, Ordering::Release);
            self.wake.wake();
        }
        true
    }

    /// Completes once a request has filled a shard to its write mark since
    /// this last completed: the flush round waits on it beside its clock,
    /// so a buffer filling faster than [`ROUND_ROOM`] a second is written
    /// when it fills, not up to a second later with the overflow dropped.
    /// One waiter at a time (the round).
    pub fn filled(&self) -> impl Future<Output = ()> + '_ {
        futures::future::poll_fn(|cx| {
            // Registered before the flag is read: a fill between the two
            // wakes this task.
            self.wake.register(cx.waker());
            if self.filled.swap(false, Ordering::AcqRel) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }

    /// Requests dropped because the buffer was full, since start.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Requests waiting for the next flush.
    pub fn pending(&self) -> usize {
        self.shards.iter().map(|s| lock(&s.buffer).len()).sum()
    }

    /// Whether a shard holds its write mark's requests or more.
    fn at_mark(&self) -> bool {
        self.shards.iter().any(|s| lock(&s.buffer).len() >= self.shard_write_at)
    }

    /// One round: once the buffer's requests have waited the hold (or a
    /// shard is at its write mark), the buffer to the store in one batch (see [`Self::write`]);
    /// then, once per [`PRUNE_EVERY`], rows past the retention out. Returns
    /// the requests written.
    pub async fn flush(&self, now: DateTime<Utc>) -> Result<usize, AccountsError> {
        let due = {
            let pending = self.pending();
            let mut held_since = self.held_since.lock().unwrap_or_else(PoisonError::into_inner);
            match *held_since {
                _ if pending == 0 => false,
                _ if self.at_mark() => true,
                Some(since) => since.elapsed() >= self.hold_for,
                // The first round to find requests: the hold starts now.
                None => {
                    *held_since = Some(Instant::now());
                    self.hold_for.is_zero()
                }
            }
        };
        let written = if due { self.write().await? } else { 0 };
        self.prune_when_due(now).await?;
        Ok(written)
    }

    /// Everything held, to the store now, whatever its age (the last round
    /// before a stop), then the prune when due. Returns the requests written.
    pub async fn flush_all(&self, now: DateTime<Utc>) -> Result<usize, AccountsError> {
        let written = self.write().await?;
        self.prune_when_due(now).await?;
        Ok(written)
    }

    /// The buffer to the store in one batch; a failed batch goes back into
    /// the buffer, within its bound, and is due again at the next round.
    async fn write(&self) -> Result<usize, AccountsError> {
        let _running = self.flushing.lock().await;
        let mut batch = self.take_batch();
        let written = batch.len();
        if !batch.is_empty() {
            let shared = Arc::new(batch);
            let stored = self.store.append_requests(shared.clone(), DAILY_CAP).await;
            // The store has let go of the batch once it answered; were it
            // still held, the allocation is not reused.
            batch = Arc::try_unwrap(shared).unwrap_or_else(|shared| shared.as_ref().clone());
            if let Err(e) = stored {
                self.put_back(batch);
                return Err(e);
            }
            batch.clear();
        }
        // Written or found empty, the batch's allocation is kept for the
        // next: a write with nothing pending must not drop memory grown.
        self.keep_allocation(batch);
        // What arrives from now on is held afresh.
        *self.held_since.lock().unwrap_or_else(PoisonError::into_inner) = None;
        Ok(written)
    }

    /// An emptied batch's allocation, kept where the next batch is made:
    /// a lone shard's spare, or the merge's.
    fn keep_allocation(&self, emptied: Vec<LoggedRequest>) {
        match &*self.shards {
            [only] => *lock(&only.spare) = emptied,
            _ => *lock(&self.merged) = emptied,
        }
    }

    /// Each shard's requests, swapped for its spare, as one batch: a lone
    /// shard's as they are, several merged by instant (each shard's in the
    /// order recorded, so a batch's requests are in the order the server
    /// recorded them to within a request's duration).
    fn take_batch(&self) -> Vec<LoggedRequest> {
        let mut taken: Vec<Vec<LoggedRequest>> = self
            .shards
            .iter()
            .map(|s| {
                let spare = std::mem::take(&mut *lock(&s.spare));
                std::mem::replace(&mut *lock(&s.buffer), spare)
            })
            .collect();
        if taken.len() == 1 {
            return taken.pop().unwrap_or_default();
        }
        let mut merged = std::mem::take(&mut *lock(&self.merged));
        merge_by_instant(&mut taken, &mut merged);
        // Emptied, each shard's taken requests are its next spare.
        for (shard, emptied) in self.shards.iter().zip(taken) {
            *lock(&shard.spare) = emptied;
        }
        merged
    }

    async fn prune_when_due(&self, now: DateTime<Utc>) -> Result<(), AccountsError> {
        let due = {
            let last = self.last_prune.lock().unwrap_or_else(PoisonError::into_inner);
            last.is_none_or(|at| now - at >= PRUNE_EVERY)
        };
        if due {
            self.prune(now).await?;
        }
        Ok(())
    }

    /// Deletes what is older than the retention, now.
    pub async fn prune(&self, now: DateTime<Utc>) -> Result<u64, AccountsError> {
        let deleted = self.store.prune_requests(self.since(now)).await?;
        *self.last_prune.lock().unwrap_or_else(PoisonError::into_inner) = Some(now);
        Ok(deleted)
    }

    /// A batch the store refused, back in front of the shards' requests:
    /// its oldest into the first shard's room, the next into the second's,
    /// and so on; what does not fit is dropped and counted.
    fn put_back(&self, batch: Vec<LoggedRequest>) {
        let mut rest = batch.into_iter();
        for shard in &*self.shards {
            let mut buffer = lock(&shard.buffer);
            let room = self.shard_bound.saturating_sub(buffer.len());
            buffer.splice(0..0, rest.by_ref().take(room));
        }
        self.dropped.fetch_add(rest.count() as u64, Ordering::Relaxed);
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
    /// (newest first, at most `limit`), with the per-day counts by key and
    /// by route of the same matching requests (so the counts add up to
    /// `matching`, filtered as the list is).
    pub async fn page(
        &self,
        customer_id: i64,
        filter: &RequestFilter,
        limit: u64,
        now: DateTime<Utc>,
    ) -> Result<RequestPage, AccountsError> {
        let since = self.since(now);
        let from = self.first_day(now);
        let stored = self.store.requests_since(customer_id, since).await?;
        let mut rows = newest_first(stored, since, filter);
        let (per_key, per_route) = per_day(&rows);
        let matching = rows.len() as u64;
        rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
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
    /// retention's days, plus the first day's).
    pub async fn all(
        &self,
        customer_id: i64,
        filter: &RequestFilter,
        now: DateTime<Utc>,
    ) -> Result<Vec<RequestRow>, AccountsError> {
        let since = self.since(now);
        let stored = self.store.requests_since(customer_id, since).await?;
        Ok(newest_first(stored, since, filter))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Moves every request of `runs` into `into`, merged by instant: each
/// step takes the earliest of the runs' next requests (the first run's on
/// a tie). Each run is left empty, its allocation kept.
fn merge_by_instant(runs: &mut [Vec<LoggedRequest>], into: &mut Vec<LoggedRequest>) {
    into.reserve(runs.iter().map(Vec::len).sum());
    let mut heads: Vec<_> = runs.iter_mut().map(|r| r.drain(..).peekable()).collect();
    loop {
        let mut earliest: Option<(usize, i64)> = None;
        for (i, head) in heads.iter_mut().enumerate() {
            if let Some(r) = head.peek()
                && earliest.is_none_or(|(_, at_ms)| r.at_ms < at_ms)
            {
                earliest = Some((i, r.at_ms));
            }
        }
        let Some(next) = earliest.and_then(|(i, _)| heads.get_mut(i)).and_then(Iterator::next) else {
            break;
        };
        into.push(next);
    }
}

/// The rows at or after `since` that `filter` admits, newest first; rows
/// of one instant keep the reverse of the order they were recorded in.
fn newest_first(stored: Vec<RequestRow>, since: DateTime<Utc>, filter: &RequestFilter) -> Vec<RequestRow> {
    let mut rows: Vec<RequestRow> = stored
        .into_iter()
        .rev()
        .filter(|r| r.at >= since && filter.admits(r))
        .collect();
    // Stable: ties stay newest-recorded first.
    rows.sort_by_key(|r| std::cmp::Reverse(r.at));
    rows
}

/// Stored requests per day and key, and per day and route (oldest day
/// first, then by key or route).
fn per_day(rows: &[RequestRow]) -> (Vec<DayCount<i64>>, Vec<DayCount<String>>) {
    let mut keys: BTreeMap<(Day, i64), u64> = BTreeMap::new();
    let mut routes: BTreeMap<(Day, &str), u64> = BTreeMap::new();
    for r in rows {
        let day = day_of(r.at);
        *keys.entry((day, r.key_id)).or_insert(0) += 1;
        *routes.entry((day, r.route.as_str())).or_insert(0) += 1;
    }
    (
        keys.into_iter()
            .map(|((day, by), requests)| DayCount { day, by, requests })
            .collect(),
        routes
            .into_iter()
            .map(|((day, by), requests)| DayCount {
                day,
                by: by.to_owned(),
                requests,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::TimeZone;

    use super::*;
    use crate::ports::request_log::{Method, RequestId, RouteTemplate};
    use crate::testing::MemoryRequestLog;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap()
    }

    const GAMES: &str = "/api/v1/games/{sport}";
    const ODDS: &str = "/api/v1/odds/{sport}";

    fn request(customer_id: i64, at: DateTime<Utc>) -> LoggedRequest {
        LoggedRequest {
            customer_id,
            key_id: 1,
            at_ms: at.timestamp_millis(),
            method: Method::Get,
            route: RouteTemplate::new(&GAMES),
            status: 200,
            duration_us: 10,
            request_id: RequestId::new("r1"),
        }
    }

    fn at(
        customer_id: i64,
        key_id: i64,
        at: DateTime<Utc>,
        route: &'static &'static str,
        status: u16,
    ) -> LoggedRequest {
        LoggedRequest {
            key_id,
            route: RouteTemplate::new(route),
            status,
            ..request(customer_id, at)
        }
    }

    /// A page lists the customer's rows within the retention that the
    /// filter admits, newest first, cut to the limit but counted in full;
    /// its per-day counts cover the same rows (within the retention, the
    /// filter applied), so they add up to the matching count.
    #[tokio::test]
    async fn a_page_filters_orders_counts_and_groups_per_day() {
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 7);
        let (games, odds) = (GAMES, ODDS);
        let yesterday = now() - TimeDelta::days(1);
        // On the first day shown, but before the retention's instant.
        let too_old = now() - TimeDelta::days(7) - TimeDelta::hours(1);
        let batch = [
            at(1, 1, too_old, &GAMES, 200),
            at(1, 1, yesterday, &GAMES, 200),
            at(1, 1, now(), &GAMES, 404),
            at(1, 2, now() + TimeDelta::seconds(1), &ODDS, 200),
            at(1, 2, now() + TimeDelta::seconds(2), &ODDS, 503),
            at(2, 3, now(), &GAMES, 200),
        ];
        store
            .append_requests(Arc::new(batch.to_vec()), DAILY_CAP)
            .await
            .unwrap();
        let later = now() + TimeDelta::seconds(3);
        let page = |filter: RequestFilter, limit| {
            let log = &log;
            async move { log.page(1, &filter, limit, later).await.unwrap() }
        };
        let all = page(RequestFilter::default(), 100).await;
        let listed: Vec<(u16, DateTime<Utc>)> = all.rows.iter().map(|r| (r.status, r.at)).collect();
        assert_eq!(
            listed,
            vec![
                (503, now() + TimeDelta::seconds(2)),
                (200, now() + TimeDelta::seconds(1)),
                (404, now()),
                (200, yesterday),
            ]
        );
        assert_eq!(all.matching, 4);
        let cut = page(RequestFilter::default(), 2).await;
        assert_eq!((cut.rows.len(), cut.matching), (2, 4));
        assert_eq!(cut.rows[0].status, 503);
        let only = |key_id, status_class, route: Option<&str>| RequestFilter {
            key_id,
            status_class,
            route: route.map(str::to_owned),
        };
        assert_eq!(page(only(Some(2), None, None), 100).await.matching, 2);
        assert_eq!(page(only(None, Some(2), None), 100).await.matching, 2);
        assert_eq!(page(only(None, Some(5), None), 100).await.matching, 1);
        let not_found = page(only(None, Some(4), Some(games)), 100).await;
        assert_eq!(not_found.rows.len(), 1);
        assert_eq!(not_found.rows[0].status, 404);
        assert_eq!(page(only(None, Some(4), Some(odds)), 100).await.matching, 0);

        // The per-day counts are those of the listed rows: not the row
        // before the retention's instant, though its day is shown.
        let keys: Vec<_> = all.per_key.iter().map(|c| (c.day, c.by, c.requests)).collect();
        assert_eq!(
            keys,
            vec![(day_of(yesterday), 1, 1), (day_of(now()), 1, 1), (day_of(now()), 2, 2)]
        );
        let routes: Vec<_> = all
            .per_route
            .iter()
            .map(|c| (c.day, c.by.as_str(), c.requests))
            .collect();
        assert_eq!(
            routes,
            vec![
                (day_of(yesterday), games, 1),
                (day_of(now()), games, 1),
                (day_of(now()), odds, 2)
            ]
        );
        // Filtered, the counts are the filter's: one 4xx, on key 1 and games.
        let client_errors = page(only(None, Some(4), None), 100).await;
        let counts = |p: &RequestPage| {
            (
                p.per_key.iter().map(|c| (c.day, c.by, c.requests)).collect::<Vec<_>>(),
                p.per_route
                    .iter()
                    .map(|c| (c.day, c.by.clone(), c.requests))
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            counts(&client_errors),
            (vec![(day_of(now()), 1, 1)], vec![(day_of(now()), games.to_owned(), 1)])
        );
        let by_key = page(only(Some(2), None, None), 100).await;
        assert_eq!(
            counts(&by_key),
            (vec![(day_of(now()), 2, 2)], vec![(day_of(now()), odds.to_owned(), 2)])
        );
        // The download: the same rows as the unlimited page, another
        // customer's never.
        let csv = log.all(1, &RequestFilter::default(), later).await.unwrap();
        assert_eq!(csv, all.rows);
        assert_eq!(log.all(2, &RequestFilter::default(), later).await.unwrap().len(), 1);
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

    /// A round leaves requests in the buffer until the first round that
    /// found them is the hold ago; the last round before a stop writes
    /// them whatever their age.
    #[tokio::test]
    async fn a_round_holds_requests_until_the_hold_has_passed() {
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 7).holding_for(Duration::from_hours(1));
        log.record(request(1, now()));
        assert_eq!(log.flush(now()).await.unwrap(), 0);
        assert_eq!(log.flush(now()).await.unwrap(), 0);
        assert_eq!((log.pending(), store.len()), (1, 0));
        assert_eq!(log.flush_all(now()).await.unwrap(), 1);
        assert_eq!((log.pending(), store.len()), (0, 1));

        let hold = Duration::from_millis(30);
        let log = RequestLog::new(store.clone(), 7).holding_for(hold);
        // An empty round starts no hold: requests recorded after it still
        // wait the whole hold from the round that first finds them.
        assert_eq!(log.flush(now()).await.unwrap(), 0);
        tokio::time::sleep(hold * 2).await;
        log.record(request(1, now()));
        assert_eq!(log.flush(now()).await.unwrap(), 0, "the hold starts at this round");
        tokio::time::sleep(hold * 2).await;
        log.record(request(1, now()));
        assert_eq!(log.flush(now()).await.unwrap(), 2);
        // The next requests are held afresh.
        log.record(request(1, now()));
        assert_eq!(log.flush(now()).await.unwrap(), 0);
        assert_eq!(store.len(), 3);
    }

    /// A buffer with less than a second's room (32,768 requests) left is
    /// written by the next round, however young its requests.
    #[tokio::test]
    async fn a_nearly_full_buffer_is_written_without_waiting_for_the_hold() {
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 7).holding_for(Duration::from_hours(1));
        let full_but_a_second = 262_144 - 32_768;
        for _ in 1..full_but_a_second {
            log.record(request(1, now()));
        }
        assert_eq!(log.flush(now()).await.unwrap(), 0);
        log.record(request(1, now()));
        assert_eq!(log.flush(now()).await.unwrap(), full_but_a_second);
        assert_eq!(log.pending(), 0);
    }

    /// The request that fills the buffer to the write mark (262,144 less
    /// 32,768) wakes the round, once; the requests before it do not.
    #[tokio::test]
    async fn the_request_that_fills_the_buffer_to_its_mark_wakes_the_round_once() {
        use futures::FutureExt;
        let log = RequestLog::new(Arc::new(MemoryRequestLog::default()), 7).holding_for(Duration::from_hours(1));
        let mark = 262_144 - 32_768;
        for _ in 1..mark {
            log.record(request(1, now()));
        }
        assert!(log.filled().now_or_never().is_none(), "one short of the mark");
        // A task already waiting is woken by the fill, not only a later poll.
        let waiting = tokio::spawn({
            let log = Arc::new(log);
            let waiter = Arc::clone(&log);
            async move {
                tokio::join!(waiter.filled(), async {
                    tokio::task::yield_now().await;
                    log.record(request(1, now()));
                });
                log
            }
        });
        let log = tokio::time::timeout(Duration::from_mins(1), waiting)
            .await
            .expect("the fill woke the waiting round")
            .unwrap();
        assert!(log.filled().now_or_never().is_none(), "one wake per fill");
        for _ in 0..1_000 {
            log.record(request(1, now()));
        }
        assert!(log.filled().now_or_never().is_none(), "past the mark: no new wake");
        assert_eq!(log.flush(now()).await.unwrap(), mark + 1_000);
        for _ in 0..mark {
            log.record(request(1, now()));
        }
        assert!(log.filled().now_or_never().is_some(), "the next fill wakes again");
    }

    /// A batch the store refused is written by the next round, once.
    #[tokio::test]
    async fn a_failed_flush_keeps_the_batch_for_the_next_round() {
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 7).holding_for(Duration::ZERO);
        log.record(request(1, now()));
        store.set_down(true);
        assert!(log.flush(now()).await.is_err());
        assert_eq!(log.pending(), 1);
        store.set_down(false);
        assert_eq!(log.flush(now()).await.unwrap(), 1);
        assert_eq!(log.flush(now()).await.unwrap(), 0);
        let page = log.page(1, &RequestFilter::default(), 10, now()).await.unwrap();
        assert_eq!(page.rows.len(), 1);

        // Held requests whose write failed are not held again: the next
        // round writes them.
        let hold = Duration::from_millis(30);
        let log = RequestLog::new(store.clone(), 7).holding_for(hold);
        log.record(request(1, now()));
        assert_eq!(log.flush(now()).await.unwrap(), 0);
        tokio::time::sleep(hold * 2).await;
        store.set_down(true);
        assert!(log.flush(now()).await.is_err());
        store.set_down(false);
        assert_eq!(log.flush(now()).await.unwrap(), 1);
    }

    fn at_ms(ms: i64) -> LoggedRequest {
        LoggedRequest {
            at_ms: now().timestamp_millis() + ms,
            ..request(1, now())
        }
    }

    /// The instants the store holds for customer 1, as offsets from `now`.
    async fn stored_offsets(store: &MemoryRequestLog) -> Vec<i64> {
        store
            .requests_since(1, now() - TimeDelta::days(1))
            .await
            .unwrap()
            .iter()
            .map(|r| (r.at - now()).num_milliseconds())
            .collect()
    }

    /// Shards are written as one batch, merged by instant: the store sees
    /// the requests in the order they were admitted, not one shard's after
    /// the other's.
    #[tokio::test]
    async fn shards_are_written_as_one_batch_merged_by_instant() {
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 7)
            .holding_for(Duration::ZERO)
            .with_shards(3);
        for (shard, ms) in [(0, 0), (1, 1), (0, 2), (2, 3), (1, 4), (1, 6), (0, 5), (2, 7)] {
            assert!(log.record_in(shard, at_ms(ms)));
        }
        assert_eq!(log.pending(), 8);
        assert_eq!(log.flush(now()).await.unwrap(), 8);
        assert_eq!(stored_offsets(&store).await, [0, 1, 2, 3, 4, 5, 6, 7]);
        // The next batch reuses the shards and the merge: same order.
        for (shard, ms) in [(2, 10), (0, 11), (1, 12), (0, 12)] {
            log.record_in(shard, at_ms(ms));
        }
        assert_eq!(log.flush(now()).await.unwrap(), 4);
        assert_eq!(&stored_offsets(&store).await[8..], [10, 11, 12, 12]);
        assert_eq!(log.pending(), 0);
    }

    /// Each of four shards holds a quarter of the 262,144: a full one drops
    /// and counts, the others still take requests.
    #[tokio::test]
    async fn each_shard_holds_its_share_of_the_bound() {
        let log = RequestLog::new(Arc::new(MemoryRequestLog::default()), 7).with_shards(4);
        for _ in 0..65_536 {
            assert!(log.record_in(1, request(1, now())));
        }
        assert!(!log.record_in(1, request(1, now())));
        // Thread number 5 is shard 1's too.
        assert!(!log.record_in(5, request(1, now())));
        assert!(log.record_in(2, request(1, now())));
        assert_eq!((log.pending(), log.dropped()), (65_537, 2));
    }

    /// With two shards, a shard that reaches 131,072 less 16,384 requests
    /// wakes the round, which writes every shard however young.
    #[tokio::test]
    async fn a_shard_at_its_mark_wakes_the_round_which_writes_every_shard() {
        use futures::FutureExt;
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 7)
            .holding_for(Duration::from_hours(1))
            .with_shards(2);
        let mark = 131_072 - 16_384;
        for _ in 1..mark {
            log.record_in(0, request(1, now()));
        }
        log.record_in(1, request(2, now()));
        assert!(log.filled().now_or_never().is_none(), "one short of the mark");
        assert_eq!(log.flush(now()).await.unwrap(), 0);
        log.record_in(0, request(1, now()));
        assert!(log.filled().now_or_never().is_some());
        assert_eq!(log.flush(now()).await.unwrap(), mark + 1);
        assert_eq!(log.pending(), 0);
    }

    /// A batch the store refused goes back into the shards and is written,
    /// merged again, by the next round.
    #[tokio::test]
    async fn a_refused_merged_batch_is_written_whole_by_the_next_round() {
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 7)
            .holding_for(Duration::ZERO)
            .with_shards(2);
        for ms in 0..10 {
            log.record_in(usize::try_from(ms % 2).unwrap(), at_ms(ms));
        }
        store.set_down(true);
        assert!(log.flush(now()).await.is_err());
        assert_eq!((log.pending(), log.dropped()), (10, 0));
        log.record_in(1, at_ms(10));
        store.set_down(false);
        assert_eq!(log.flush(now()).await.unwrap(), 11);
        assert_eq!(stored_offsets(&store).await, (0..=10).collect::<Vec<_>>());
    }

    /// A write that finds nothing pending (the stop's last flush,
    /// `flush_all`) keeps the memory the buffers grew to:
    /// what the shards, their spares and the merge hold together is the
    /// same after it, with one shard and with several.
    #[tokio::test]
    async fn an_empty_write_keeps_the_grown_allocations() {
        fn held(log: &RequestLog) -> usize {
            let shards: usize = log
                .shards
                .iter()
                .map(|s| lock(&s.buffer).capacity() + lock(&s.spare).capacity())
                .sum();
            shards + lock(&log.merged).capacity()
        }
        for shards in [1, 2] {
            let store = Arc::new(MemoryRequestLog::default());
            let log = RequestLog::new(store.clone(), 7)
                .holding_for(Duration::ZERO)
                .with_shards(shards);
            // Two rounds of writes, so buffers and spares have both grown.
            for round in 0..2 {
                for ms in 0..100 {
                    log.record_in(usize::try_from(ms % 2).unwrap(), at_ms(round * 100 + ms));
                }
                assert_eq!(log.flush(now()).await.unwrap(), 100);
            }
            let grown = held(&log);
            assert!(grown >= 200, "{shards} shard(s): {grown}");
            assert_eq!(log.flush_all(now()).await.unwrap(), 0);
            assert_eq!(held(&log), grown, "{shards} shard(s), after an empty write");
        }
    }

    /// A thread keeps its number, and two threads have two numbers: the
    /// first n workers to record fall to n shards.
    #[test]
    fn each_thread_records_under_a_number_of_its_own() {
        let here = thread_number();
        assert_eq!(thread_number(), here);
        let there = std::thread::spawn(thread_number).join().unwrap();
        assert_ne!(there, here);
    }

    /// Rows older than the retention are pruned by the round, at most once
    /// an hour.
    #[tokio::test]
    async fn the_round_prunes_past_the_retention_once_an_hour() {
        let store = Arc::new(MemoryRequestLog::default());
        let log = RequestLog::new(store.clone(), 2).holding_for(Duration::ZERO);
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
