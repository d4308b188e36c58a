//! `UsageMeter` for `SeaAccounts`: atomic month and day counters and the
//! refresh ledger, each write one upsert statement; a batch writes its
//! months and its days in one transaction.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::quota_calendar::{day_key, month_key, month_of_day, parse_day_key, parse_month_key};
use linecast_core::{AccountsError, Day, Month, UsageMeter};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QueryResult};

use crate::SeaAccounts;
use crate::entity::{refresh_ledger, usage_counters, usage_daily};
use crate::error::{corrupt, db_err};
use crate::sql::begin_write;
use crate::sql::{ADD_DAILY_USAGE, ADD_USAGE, CONSUME_REFRESH, statement};

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

async fn add_day<C: ConnectionTrait>(db: &C, customer_id: i64, day: Day, n: u64) -> Result<(), AccountsError> {
    let stmt = statement(
        db.get_database_backend(),
        ADD_DAILY_USAGE,
        vec![customer_id.into(), day_key(day).into(), increment(n)?.into()],
    );
    db.execute_raw(stmt).await.map_err(db_err)?;
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
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        for ((customer_id, month), n) in months {
            add_one(&txn, customer_id, month, n).await?;
        }
        for ((customer_id, day), n) in days {
            add_day(&txn, customer_id, day, n).await?;
        }
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
