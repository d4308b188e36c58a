//! `RequestLogStore` for `SeaAccounts`: a batch's day totals and segments in
//! one transaction. All customer-days of a batch are counted in one upsert
//! that returns each day's new total (the rows stay locked to the commit on
//! PostgreSQL, taken in one order), so concurrent batches of several
//! instances share each day's cap exactly; then each customer-day's stored
//! requests are one segment row, whatever their number ([`packed`]).
//!
//! The batch (up to 16 MiB, its requests in the order admitted, customers
//! interleaved) is read front to back to count each customer-day's
//! requests and list them by customer-day; each segment's rows are then
//! packed whole from their own list, one segment after another
//! ([`packed`], format 3; the JSON formats before it are still read,
//! [`json`]).

mod json;
mod packed;

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::AccountsError;
use linecast_core::ports::request_log::{LoggedRequest, RequestLogStore, RequestRow};
use linecast_core::quota_calendar::{Day, day_key, day_of, parse_day_key};
use sea_orm::{ConnectionTrait, DatabaseTransaction, DbBackend, QueryResult, Value};

use crate::SeaAccounts;
use crate::error::{corrupt, db_err};
use crate::sql::begin_write;
use crate::sql::{placeholders, statement};

/// Customer-days per counting upsert (3 values each).
const DAYS_PER_UPSERT: usize = 300;

/// Segments per `INSERT` (7 values each).
const SEGMENTS_PER_INSERT: usize = 100;

fn int(n: u64) -> Result<i64, AccountsError> {
    i64::try_from(n).map_err(|_| AccountsError::Conflict(format!("request log value {n} too large")))
}

fn get_i64(row: &QueryResult, column: &str) -> Result<i64, AccountsError> {
    row.try_get("", column).map_err(db_err)
}

fn unsigned(n: i64, what: &str) -> Result<u64, AccountsError> {
    u64::try_from(n).map_err(|_| corrupt(format!("negative {what}")))
}

fn day_of_row(row: &QueryResult) -> Result<Day, AccountsError> {
    let day: String = row.try_get("", "day").map_err(db_err)?;
    parse_day_key(&day).ok_or_else(|| corrupt(format!("request log day {day:?}")))
}

/// Adds each customer-day's requests to its total and returns the new
/// totals. `days` is in the order their rows are locked.
async fn add_offered(
    txn: &DatabaseTransaction,
    backend: DbBackend,
    days: &[((i64, Day), u64)],
) -> Result<HashMap<(i64, Day), u64>, AccountsError> {
    let mut totals = HashMap::with_capacity(days.len());
    for chunk in days.chunks(DAYS_PER_UPSERT) {
        let sql = format!(
            "INSERT INTO request_log_days (customer_id, day, offered) VALUES {} \
             ON CONFLICT (customer_id, day) DO UPDATE SET offered = request_log_days.offered + excluded.offered \
             RETURNING customer_id, day, offered",
            placeholders(chunk.len(), 3)
        );
        let mut values: Vec<Value> = Vec::with_capacity(chunk.len() * 3);
        for ((customer_id, day), requests) in chunk {
            values.extend([(*customer_id).into(), day_key(*day).into(), int(*requests)?.into()]);
        }
        for row in txn
            .query_all_raw(statement(backend, &sql, values))
            .await
            .map_err(db_err)?
        {
            let total = unsigned(get_i64(&row, "offered")?, "request count")?;
            totals.insert((get_i64(&row, "customer_id")?, day_of_row(&row)?), total);
        }
    }
    Ok(totals)
}

/// The customer-days of a batch, from one read of it, front to back.
struct Days {
    /// Each customer-day met, with its requests in the batch, in the order
    /// first met.
    counts: Vec<((i64, Day), u64)>,
    /// Each request's customer-day, an index into `counts`.
    of_request: Vec<u32>,
}

impl Days {
    fn of(batch: &[LoggedRequest]) -> Self {
        let mut index: foldhash::HashMap<(i64, Day), u32> = foldhash::HashMap::default();
        let mut counts: Vec<((i64, Day), u64)> = Vec::new();
        let mut of_request = Vec::with_capacity(batch.len());
        let mut days = DayOf::default();
        for r in batch {
            let key = (r.customer_id, days.of(r));
            let at = *index.entry(key).or_insert_with(|| {
                counts.push((key, 0));
                // A batch holds far fewer than 2^32 requests.
                u32::try_from(counts.len() - 1).unwrap_or(u32::MAX)
            });
            if let Some((_, n)) = counts.get_mut(at as usize) {
                *n += 1;
            }
            of_request.push(at);
        }
        Self { counts, of_request }
    }

    /// Each customer-day's requests, as indexes into the batch in the
    /// order recorded: those of `counts[i]` are `members[start[i]..start[i
    /// + 1]]`.
    fn members(&self) -> (Vec<usize>, Vec<u32>) {
        let mut start = Vec::with_capacity(self.counts.len() + 1);
        let mut next = 0;
        start.push(next);
        for &(_, n) in &self.counts {
            next += usize::try_from(n).unwrap_or(usize::MAX);
            start.push(next);
        }
        let mut fill = start.clone();
        let mut members = vec![0; self.of_request.len()];
        for (request, &at) in (0_u32..).zip(&self.of_request) {
            let slot = &mut fill[at as usize];
            members[*slot] = request;
            *slot += 1;
        }
        (start, members)
    }

    /// The indexes of `counts` by customer, then day: the order concurrent
    /// batches lock day rows in (no deadlock), and segments are written in.
    fn in_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.counts.len()).collect();
        order.sort_unstable_by_key(|&i| self.counts[i].0);
        order
    }
}

/// [`day_of`] a request's instant, computed once for each UTC day met: a
/// batch's requests are nearly all of one or two days, and instants in
/// one block of 86,400,000 Unix milliseconds are of one UTC day.
struct DayOf {
    number: i64,
    day: Day,
}

impl Default for DayOf {
    fn default() -> Self {
        Self {
            // No instant's day number (its milliseconds over a day's).
            number: i64::MIN,
            day: Day::default(),
        }
    }
}

impl DayOf {
    const MS_A_DAY: i64 = 86_400_000;

    fn of(&mut self, r: &LoggedRequest) -> Day {
        let number = r.at_ms.div_euclid(Self::MS_A_DAY);
        if number != self.number {
            (self.number, self.day) = (number, day_of(r.at()));
        }
        self.day
    }
}

/// One customer-day's stored requests, ready to insert.
struct Segment {
    customer_id: i64,
    day: Day,
    first_ms: i64,
    last_ms: i64,
    requests: usize,
    packed: Vec<u8>,
}

/// The segments of `batch`: of each customer-day, its first `room`
/// requests in the order recorded (`room` by index of `days.counts`), in
/// `order`. Each segment's body is written whole, one after the other:
/// the batch's requests are first listed by customer-day (a counting
/// sort of `days.of_request`, in batch order within each), then each
/// segment reads its own. Writing each request into its customer-day's
/// body as the batch came spread the writes over a thousand bodies at
/// once, and a core waits on a store to memory it has not touched, not
/// on a read (`bench/RESULTS.md`, "The request log on the hit path").
fn segments(batch: &[LoggedRequest], days: &Days, room: &[u64], order: &[usize]) -> Vec<Segment> {
    let (start, members) = days.members();
    order
        .iter()
        .filter_map(|&i| {
            let take = usize::try_from(room[i]).unwrap_or(usize::MAX);
            if take == 0 {
                return None;
            }
            let own = &members[start[i]..start[i + 1]];
            let mut writer = packed::Writer::with_rows(take.min(own.len()));
            for &m in own.iter().take(take) {
                writer.push(&batch[m as usize]);
            }
            let ((customer_id, day), _) = days.counts[i];
            let (first_ms, last_ms) = writer.span_ms();
            Some(Segment {
                customer_id,
                day,
                first_ms,
                last_ms,
                requests: writer.rows(),
                packed: writer.finish(),
            })
        })
        .collect()
}

async fn insert_segments(
    txn: &DatabaseTransaction,
    backend: DbBackend,
    segments: Vec<Segment>,
) -> Result<(), AccountsError> {
    let mut segments = segments.into_iter().peekable();
    while segments.peek().is_some() {
        let chunk: Vec<Segment> = segments.by_ref().take(SEGMENTS_PER_INSERT).collect();
        let sql = format!(
            "INSERT INTO request_log_segments (customer_id, day, first_ms, last_ms, requests, body, packed) VALUES {}",
            placeholders(chunk.len(), 7)
        );
        let mut values: Vec<Value> = Vec::with_capacity(chunk.len() * 7);
        for s in chunk {
            values.extend([
                s.customer_id.into(),
                day_key(s.day).into(),
                s.first_ms.into(),
                s.last_ms.into(),
                int(s.requests as u64)?.into(),
                packed::BODY.into(),
                s.packed.into(),
            ]);
        }
        txn.execute_raw(statement(backend, &sql, values))
            .await
            .map_err(db_err)?;
    }
    Ok(())
}

/// Moves the rows of `request_log` (the release before segments', or one
/// still running during a rollout) into segments, one per customer-day.
async fn fold_legacy_rows(txn: &DatabaseTransaction, backend: DbBackend) -> Result<(), AccountsError> {
    let fold = match backend {
        // Concurrent folds each take only rows they deleted.
        DbBackend::Postgres => vec![
            "WITH moved AS (DELETE FROM request_log RETURNING *) \
             INSERT INTO request_log_segments (customer_id, day, first_ms, last_ms, requests, body) \
             SELECT customer_id, day, MIN(at_ms), MAX(at_ms), COUNT(*), \
             json_agg(json_build_array(at_ms, key_id, method, route, status, duration_us, request_id) ORDER BY id)::text \
             FROM moved GROUP BY customer_id, day",
        ],
        // The write transaction holds SQLite's only write lock.
        _ => vec![
            "INSERT INTO request_log_segments (customer_id, day, first_ms, last_ms, requests, body) \
             SELECT customer_id, day, MIN(at_ms), MAX(at_ms), COUNT(*), \
             json_group_array(json_array(at_ms, key_id, method, route, status, duration_us, request_id) ORDER BY id) \
             FROM request_log GROUP BY customer_id, day",
            "DELETE FROM request_log",
        ],
    };
    for sql in fold {
        txn.execute_raw(statement(backend, sql, vec![])).await.map_err(db_err)?;
    }
    Ok(())
}

#[async_trait]
impl RequestLogStore for SeaAccounts {
    async fn append_requests(&self, batch: Arc<Vec<LoggedRequest>>, cap_per_day: u64) -> Result<(), AccountsError> {
        let days = Days::of(&batch);
        if days.counts.is_empty() {
            return Ok(());
        }
        let order = days.in_order();
        let ordered: Vec<((i64, Day), u64)> = order.iter().map(|&i| days.counts[i]).collect();
        let backend = self.db.get_database_backend();
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        let totals = add_offered(&txn, backend, &ordered).await?;
        // What each customer-day may still store: the cap less what the
        // day held before this batch.
        let room = days
            .counts
            .iter()
            .map(|&(day, n)| {
                let total = *totals
                    .get(&day)
                    .ok_or_else(|| corrupt("request day upsert returned no row"))?;
                Ok(cap_per_day.saturating_sub(total.saturating_sub(n)).min(n))
            })
            .collect::<Result<Vec<u64>, AccountsError>>()?;
        insert_segments(&txn, backend, segments(&batch, &days, &room, &order)).await?;
        txn.commit().await.map_err(db_err)
    }

    async fn prune_requests(&self, before: DateTime<Utc>) -> Result<u64, AccountsError> {
        let backend = self.db.get_database_backend();
        let before_ms = before.timestamp_millis();
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        let mut deleted = txn
            .execute_raw(statement(
                backend,
                "DELETE FROM request_log WHERE at_ms < ?",
                vec![before_ms.into()],
            ))
            .await
            .map_err(db_err)?
            .rows_affected();
        fold_legacy_rows(&txn, backend).await?;
        for row in txn
            .query_all_raw(statement(
                backend,
                "DELETE FROM request_log_segments WHERE last_ms < ? RETURNING requests",
                vec![before_ms.into()],
            ))
            .await
            .map_err(db_err)?
        {
            let requests: i32 = row.try_get("", "requests").map_err(db_err)?;
            deleted += u64::try_from(requests).map_err(|_| corrupt(format!("segment of {requests} requests")))?;
        }
        txn.execute_raw(statement(
            backend,
            "DELETE FROM request_log_days WHERE day < ?",
            vec![day_key(day_of(before)).into()],
        ))
        .await
        .map_err(db_err)?;
        txn.commit().await.map_err(db_err)?;
        Ok(deleted)
    }

    async fn requests_since(&self, customer_id: i64, since: DateTime<Utc>) -> Result<Vec<RequestRow>, AccountsError> {
        let segments = self
            .db
            .query_all_raw(statement(
                self.db.get_database_backend(),
                "SELECT id, body, packed FROM request_log_segments WHERE customer_id = ? AND last_ms >= ? ORDER BY id",
                vec![customer_id.into(), since.timestamp_millis().into()],
            ))
            .await
            .map_err(db_err)?;
        let mut rows = Vec::new();
        for s in &segments {
            let id = get_i64(s, "id")?;
            let decoded = match s.try_get::<Option<Vec<u8>>>("", "packed").map_err(db_err)? {
                Some(rows) => packed::decode(id, &rows)?,
                None => json::decode(id, &s.try_get::<String>("", "body").map_err(db_err)?)?,
            };
            rows.extend(decoded.into_iter().filter(|r| r.at >= since));
        }
        Ok(rows)
    }

    async fn requests_offered(&self, customer_id: i64, from: Day) -> Result<Vec<(Day, u64)>, AccountsError> {
        let rows = self
            .db
            .query_all_raw(statement(
                self.db.get_database_backend(),
                "SELECT day, offered FROM request_log_days WHERE customer_id = ? AND day >= ? ORDER BY day",
                vec![customer_id.into(), day_key(from).into()],
            ))
            .await
            .map_err(db_err)?;
        rows.iter()
            .map(|row| Ok((day_of_row(row)?, unsigned(get_i64(row, "offered")?, "request count")?)))
            .collect()
    }
}
