//! `RequestLogStore` for `SeaAccounts`: a batch's rows and its days' counts
//! in one transaction. Each customer-day's count is one upsert that returns
//! the new total (the row stays locked to the commit on PostgreSQL), so
//! concurrent batches of several instances share the day's cap exactly.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::AccountsError;
use linecast_core::ports::request_log::{DayCount, LoggedRequest, RequestFilter, RequestLogStore, RequestRow};
use linecast_core::quota_calendar::{Day, day_key, day_of, parse_day_key};
use sea_orm::{ConnectionTrait, QueryResult, Value};

use crate::SeaAccounts;
use crate::error::{corrupt, db_err};
use crate::sql::begin_write;
use crate::sql::statement;

/// Adds a batch's requests to its customer-day and returns the day's new
/// total.
const ADD_OFFERED: &str = "INSERT INTO request_log_days (customer_id, day, offered) VALUES (?, ?, ?) \
     ON CONFLICT (customer_id, day) DO UPDATE SET offered = request_log_days.offered + excluded.offered \
     RETURNING offered";

const COLUMNS: &str = "customer_id, key_id, at_ms, day, method, route, status, duration_us, request_id";

/// Rows per `INSERT` (9 values each, well under either backend's limit).
const ROWS_PER_INSERT: usize = 100;

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

/// The `WHERE` of a customer's rows since an instant under `filter`, and
/// its values.
fn filtered(customer_id: i64, since: DateTime<Utc>, filter: &RequestFilter) -> (String, Vec<Value>) {
    let mut sql = String::from(" WHERE customer_id = ? AND at_ms >= ?");
    let mut values: Vec<Value> = vec![customer_id.into(), since.timestamp_millis().into()];
    if let Some(key_id) = filter.key_id {
        sql.push_str(" AND key_id = ?");
        values.push(key_id.into());
    }
    if let Some(class) = filter.status_class {
        sql.push_str(" AND status >= ? AND status < ?");
        values.push((i32::from(class) * 100).into());
        values.push((i32::from(class) * 100 + 100).into());
    }
    if let Some(route) = &filter.route {
        sql.push_str(" AND route = ?");
        values.push(route.clone().into());
    }
    (sql, values)
}

#[async_trait]
impl RequestLogStore for SeaAccounts {
    async fn append_requests(&self, batch: &[LoggedRequest], cap_per_day: u64) -> Result<(), AccountsError> {
        // Sorted by customer-day so concurrent batches lock day rows in one
        // order (no deadlock).
        let mut days: BTreeMap<(i64, Day), Vec<&LoggedRequest>> = BTreeMap::new();
        for r in batch {
            days.entry((r.customer_id, day_of(r.at))).or_default().push(r);
        }
        if days.is_empty() {
            return Ok(());
        }
        let backend = self.db.get_database_backend();
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        let mut stored: Vec<&LoggedRequest> = Vec::with_capacity(batch.len());
        for ((customer_id, day), requests) in &days {
            let n = requests.len() as u64;
            let stmt = statement(
                backend,
                ADD_OFFERED,
                vec![(*customer_id).into(), day_key(*day).into(), int(n)?.into()],
            );
            let row = txn
                .query_one_raw(stmt)
                .await
                .map_err(db_err)?
                .ok_or_else(|| corrupt("request day upsert returned no row"))?;
            let total = unsigned(get_i64(&row, "offered")?, "request count")?;
            let before = total.saturating_sub(n);
            let room = cap_per_day.saturating_sub(before).min(n);
            stored.extend(requests.iter().take(usize::try_from(room).unwrap_or(usize::MAX)));
        }
        for chunk in stored.chunks(ROWS_PER_INSERT) {
            let mut sql = format!("INSERT INTO request_log ({COLUMNS}) VALUES ");
            let mut values: Vec<Value> = Vec::with_capacity(chunk.len() * 9);
            for (i, r) in chunk.iter().enumerate() {
                if i > 0 {
                    sql.push_str(", ");
                }
                sql.push_str("(?, ?, ?, ?, ?, ?, ?, ?, ?)");
                values.extend([
                    r.customer_id.into(),
                    r.key_id.into(),
                    r.at.timestamp_millis().into(),
                    day_key(day_of(r.at)).into(),
                    r.method.into(),
                    r.route.into(),
                    i32::from(r.status).into(),
                    int(r.duration_us)?.into(),
                    r.request_id.as_str().into(),
                ]);
            }
            txn.execute_raw(statement(backend, &sql, values))
                .await
                .map_err(db_err)?;
        }
        txn.commit().await.map_err(db_err)
    }

    async fn prune_requests(&self, before: DateTime<Utc>) -> Result<u64, AccountsError> {
        let backend = self.db.get_database_backend();
        let deleted = self
            .db
            .execute_raw(statement(
                backend,
                "DELETE FROM request_log WHERE at_ms < ?",
                vec![before.timestamp_millis().into()],
            ))
            .await
            .map_err(db_err)?
            .rows_affected();
        self.db
            .execute_raw(statement(
                backend,
                "DELETE FROM request_log_days WHERE day < ?",
                vec![day_key(day_of(before)).into()],
            ))
            .await
            .map_err(db_err)?;
        Ok(deleted)
    }

    async fn requests(
        &self,
        customer_id: i64,
        since: DateTime<Utc>,
        filter: &RequestFilter,
        limit: u64,
    ) -> Result<Vec<RequestRow>, AccountsError> {
        let (filter_sql, mut values) = filtered(customer_id, since, filter);
        values.push(int(limit)?.into());
        let sql = format!(
            "SELECT at_ms, key_id, method, route, status, duration_us, request_id FROM request_log{filter_sql} \
             ORDER BY at_ms DESC, id DESC LIMIT ?"
        );
        let rows = self
            .db
            .query_all_raw(statement(self.db.get_database_backend(), &sql, values))
            .await
            .map_err(db_err)?;
        rows.iter()
            .map(|row| {
                let at_ms = get_i64(row, "at_ms")?;
                let status: i32 = row.try_get("", "status").map_err(db_err)?;
                Ok(RequestRow {
                    at: DateTime::from_timestamp_millis(at_ms)
                        .ok_or_else(|| corrupt(format!("request log instant {at_ms}")))?,
                    key_id: get_i64(row, "key_id")?,
                    method: row.try_get("", "method").map_err(db_err)?,
                    route: row.try_get("", "route").map_err(db_err)?,
                    status: u16::try_from(status).map_err(|_| corrupt(format!("request log status {status}")))?,
                    duration_us: unsigned(get_i64(row, "duration_us")?, "duration")?,
                    request_id: row.try_get("", "request_id").map_err(db_err)?,
                })
            })
            .collect()
    }

    async fn count_requests(
        &self,
        customer_id: i64,
        since: DateTime<Utc>,
        filter: &RequestFilter,
    ) -> Result<u64, AccountsError> {
        let (filter_sql, values) = filtered(customer_id, since, filter);
        let sql = format!("SELECT COUNT(*) AS n FROM request_log{filter_sql}");
        let row = self
            .db
            .query_one_raw(statement(self.db.get_database_backend(), &sql, values))
            .await
            .map_err(db_err)?
            .ok_or_else(|| corrupt("count returned no row"))?;
        unsigned(get_i64(&row, "n")?, "count")
    }

    async fn requests_per_day(
        &self,
        customer_id: i64,
        from: Day,
    ) -> Result<(Vec<DayCount<i64>>, Vec<DayCount<String>>), AccountsError> {
        let backend = self.db.get_database_backend();
        let values = || vec![Value::from(customer_id), day_key(from).into()];
        let keys = self
            .db
            .query_all_raw(statement(
                backend,
                "SELECT day, key_id, COUNT(*) AS n FROM request_log WHERE customer_id = ? AND day >= ? \
                 GROUP BY day, key_id ORDER BY day, key_id",
                values(),
            ))
            .await
            .map_err(db_err)?;
        let routes = self
            .db
            .query_all_raw(statement(
                backend,
                "SELECT day, route, COUNT(*) AS n FROM request_log WHERE customer_id = ? AND day >= ? \
                 GROUP BY day, route ORDER BY day, route",
                values(),
            ))
            .await
            .map_err(db_err)?;
        let keys = keys
            .iter()
            .map(|row| {
                Ok(DayCount {
                    day: day_of_row(row)?,
                    by: get_i64(row, "key_id")?,
                    requests: unsigned(get_i64(row, "n")?, "count")?,
                })
            })
            .collect::<Result<_, AccountsError>>()?;
        let routes = routes
            .iter()
            .map(|row| {
                Ok(DayCount {
                    day: day_of_row(row)?,
                    by: row.try_get("", "route").map_err(db_err)?,
                    requests: unsigned(get_i64(row, "n")?, "count")?,
                })
            })
            .collect::<Result<_, AccountsError>>()?;
        Ok((keys, routes))
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
