//! `UsageMeter` for `SeaAccounts`: atomic month and day counters and the
//! refresh ledger, each write one upsert statement; a batch writes its
//! months and its days in one transaction, [`ROWS_PER_UPSERT`] counters a
//! statement.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::quota_calendar::{day_key, month_key, month_of_day, parse_day_key, parse_month_key};
use linecast_core::{AccountsError, Day, Month, UsageMeter};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, QueryFilter, QueryOrder, QueryResult, Value,
};

use crate::SeaAccounts;
use crate::entity::{refresh_ledger, usage_counters, usage_daily};
use crate::error::{corrupt, db_err};
use crate::sql::begin_write;
use crate::sql::{ADD_USAGE, CONSUME_REFRESH, placeholders, statement};

/// Counters a batch's upsert adds to at once (three values each). The
/// flush round writes every active customer's month and day each second:
/// a statement per counter was two round trips to the database per
/// customer, and on SQLite two thread switches each (sqlx runs it on a
/// thread of its own; `bench/RESULTS.md`, "The usage round in a few
/// statements").
const ROWS_PER_UPSERT: usize = 300;

fn increment(n: u64) -> Result<i64, AccountsError> {
    i64::try_from(n).map_err(|_| AccountsError::Conflict(format!("usage increment {n} too large")))
}

fn total(row: Option<QueryResult>) -> Result<u64, AccountsError> {
    let row = row.ok_or_else(|| corrupt("usage upsert returned no row"))?;
    let requests: i64 = row.try_get("", "requests").map_err(db_err)?;
    u64::try_from(requests).map_err(|_| corrupt("negative usage counter"))
}

async fn add_one<C: ConnectionTrait>(db: &C, customer_id: i64, month: Month, n: u64) -> Result<u64, AccountsError> {
    let stmt = statement(
        db.get_database_backend(),
        ADD_USAGE,
        vec![customer_id.into(), month_key(month).into(), increment(n)?.into()],
    );
    total(db.query_one_raw(stmt).await.map_err(db_err)?)
}

/// Adds each row's requests to its counter in `table` (keyed by
/// `customer_id` and `key`, the month or the day), creating it at need,
/// in the order of `rows`: the order the rows are locked in. `table` and
/// `key` are this module's own names, never input.
async fn add_counts(
    txn: &DatabaseTransaction,
    (table, key): (&str, &str),
    rows: &[(i64, String, u64)],
) -> Result<(), AccountsError> {
    let backend = txn.get_database_backend();
    for chunk in rows.chunks(ROWS_PER_UPSERT) {
        let sql = format!(
            "INSERT INTO {table} (customer_id, {key}, requests) VALUES {} \
             ON CONFLICT (customer_id, {key}) DO UPDATE SET requests = {table}.requests + excluded.requests",
            placeholders(chunk.len(), 3)
        );
        let mut values: Vec<Value> = Vec::with_capacity(chunk.len() * 3);
        for (customer_id, at, n) in chunk {
            values.extend([(*customer_id).into(), at.clone().into(), increment(*n)?.into()]);
        }
        txn.execute_raw(statement(backend, &sql, values))
            .await
            .map_err(db_err)?;
    }
    Ok(())
}

fn count(requests: i64) -> Result<u64, AccountsError> {
    u64::try_from(requests).map_err(|_| corrupt("negative usage counter"))
}

#[async_trait]
impl UsageMeter for SeaAccounts {
    async fn add_usage(&self, customer_id: i64, month: Month, n: u64) -> Result<u64, AccountsError> {
        add_one(&self.db, customer_id, month, n).await
    }

    async fn add_usage_batch(&self, increments: &[(i64, Day, u64)]) -> Result<(), AccountsError> {
        // Merge and sort so concurrent batches lock rows in one order (every
        // month row, then every day row, each sorted: no deadlock).
        let mut months = std::collections::BTreeMap::<(i64, Month), u64>::new();
        let mut days = std::collections::BTreeMap::<(i64, Day), u64>::new();
        for &(customer_id, day, n) in increments.iter().filter(|i| i.2 > 0) {
            let month = months.entry((customer_id, month_of_day(day))).or_default();
            *month = month.saturating_add(n);
            let day = days.entry((customer_id, day)).or_default();
            *day = day.saturating_add(n);
        }
        if months.is_empty() {
            return Ok(());
        }
        let months: Vec<(i64, String, u64)> = months.into_iter().map(|((c, m), n)| (c, month_key(m), n)).collect();
        let days: Vec<(i64, String, u64)> = days.into_iter().map(|((c, d), n)| (c, day_key(d), n)).collect();
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        add_counts(&txn, ("usage_counters", "month"), &months).await?;
        add_counts(&txn, ("usage_daily", "day"), &days).await?;
        txn.commit().await.map_err(db_err)
    }

    async fn get_usage(&self, customer_id: i64, month: Month) -> Result<u64, AccountsError> {
        let row = usage_counters::Entity::find_by_id((customer_id, month_key(month)))
            .one(&self.db)
            .await
            .map_err(db_err)?;
        row.map_or(Ok(0), |m| count(m.requests))
    }

    async fn daily_usage(&self, customer_id: i64, from: Day, to: Day) -> Result<Vec<(Day, u64)>, AccountsError> {
        // `YYYY-MM-DD` keys sort as the days do.
        let rows = usage_daily::Entity::find()
            .filter(usage_daily::Column::CustomerId.eq(customer_id))
            .filter(usage_daily::Column::Day.between(day_key(from), day_key(to)))
            .order_by_asc(usage_daily::Column::Day)
            .all(&self.db)
            .await
            .map_err(db_err)?;
        rows.into_iter()
            .map(|row| {
                let day = parse_day_key(&row.day).ok_or_else(|| corrupt(format!("usage day {:?}", row.day)))?;
                Ok((day, count(row.requests)?))
            })
            .collect()
    }

    async fn monthly_usage(
        &self,
        customer_id: i64,
        from: Month,
        to: Month,
    ) -> Result<Vec<(Month, u64)>, AccountsError> {
        let rows = usage_counters::Entity::find()
            .filter(usage_counters::Column::CustomerId.eq(customer_id))
            .filter(usage_counters::Column::Month.between(month_key(from), month_key(to)))
            .order_by_asc(usage_counters::Column::Month)
            .all(&self.db)
            .await
            .map_err(db_err)?;
        rows.into_iter()
            .map(|row| {
                let month =
                    parse_month_key(&row.month).ok_or_else(|| corrupt(format!("usage month {:?}", row.month)))?;
                Ok((month, count(row.requests)?))
            })
            .collect()
    }

    async fn try_consume_refresh(
        &self,
        customer_id: i64,
        month: Month,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Option<u32>, AccountsError> {
        // The insert branch takes the first refresh unconditionally.
        if limit == 0 {
            return Ok(None);
        }
        let limit = i32::try_from(limit).unwrap_or(i32::MAX);
        let stmt = statement(
            self.db.get_database_backend(),
            CONSUME_REFRESH,
            vec![customer_id.into(), month_key(month).into(), now.into(), limit.into()],
        );
        let Some(row) = self.db.query_one_raw(stmt).await.map_err(db_err)? else {
            return Ok(None);
        };
        let used: i32 = row.try_get("", "used").map_err(db_err)?;
        u32::try_from(used)
            .map(Some)
            .map_err(|_| corrupt("negative refresh count"))
    }

    async fn refreshes_used(&self, customer_id: i64, month: Month) -> Result<u32, AccountsError> {
        let row = refresh_ledger::Entity::find_by_id((customer_id, month_key(month)))
            .one(&self.db)
            .await
            .map_err(db_err)?;
        row.map_or(Ok(0), |m| {
            u32::try_from(m.used).map_err(|_| corrupt("negative refresh count"))
        })
    }
}
