//! `LedgerBook` for `SeaAccounts`: the public ledger's sealed days
//! (`ledger_days`) and the releases each lists (`ledger_entries`), beside
//! the release log they are sealed from. A day and its entries are written
//! in one transaction, once: the day's row goes first, so of two instances
//! sealing the same day the second finds it (on PostgreSQL its insert
//! waits for the first transaction) and writes nothing.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use linecast_core::AccountsError;
use linecast_core::ports::ledger::{Day, DayRoot, Entry, LedgerBook};
use sea_orm::sea_query::{Expr, ExprTrait as _, OnConflict, Query};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use crate::SeaAccounts;
use crate::entity::{kept_releases, ledger_days, ledger_entries};
use crate::error::{corrupt, db_err};
use crate::sql::begin_write;

/// Entries written per statement (SQLite's bound-variable limit).
const ENTRY_CHUNK: usize = 500;

fn instant(us: i64) -> Result<DateTime<Utc>, AccountsError> {
    DateTime::<Utc>::from_timestamp_micros(us).ok_or_else(|| corrupt(format_args!("ledger instant {us}")))
}

fn date(text: &str) -> Result<NaiveDate, AccountsError> {
    text.parse().map_err(|_| corrupt(format_args!("ledger day {text}")))
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn to_root(m: ledger_days::Model) -> Result<DayRoot, AccountsError> {
    Ok(DayRoot {
        date: date(&m.day)?,
        previous: m.previous_root,
        root: m.root,
        releases: u32::try_from(m.releases).unwrap_or(0),
        late: u32::try_from(m.late).unwrap_or(0),
    })
}

#[async_trait]
impl LedgerBook for SeaAccounts {
    async fn last_sealed(&self) -> Result<Option<(NaiveDate, String)>, AccountsError> {
        ledger_days::Entity::find()
            .order_by_desc(ledger_days::Column::Day)
            .one(&self.db)
            .await
            .map_err(db_err)?
            .map(|m| Ok((date(&m.day)?, m.root)))
            .transpose()
    }

    async fn unlisted(&self, from: Option<DateTime<Utc>>, before: DateTime<Utc>) -> Result<Vec<Entry>, AccountsError> {
        let listed = Query::select()
            .expr(Expr::val(1))
            .from(ledger_entries::Entity)
            .and_where(
                Expr::col((ledger_entries::Entity, ledger_entries::Column::Series))
                    .equals((kept_releases::Entity, kept_releases::Column::Series)),
            )
            .and_where(
                Expr::col((ledger_entries::Entity, ledger_entries::Column::PublishedAtUs))
                    .equals((kept_releases::Entity, kept_releases::Column::PublishedAtUs)),
            )
            .to_owned();
        let mut query = kept_releases::Entity::find()
            .filter(kept_releases::Column::PublishedAtUs.lt(before.timestamp_micros()))
            .filter(Expr::not_exists(listed));
        if let Some(from) = from {
            query = query.filter(kept_releases::Column::PublishedAtUs.gte(from.timestamp_micros()));
        }
        query
            .order_by_asc(kept_releases::Column::PublishedAtUs)
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(|m| {
                Ok(Entry {
                    published_at: instant(m.published_at_us)?,
                    series: m.series,
                    digest: m.digest,
                })
            })
            .collect()
    }

    async fn seal(&self, day: &Day) -> Result<bool, AccountsError> {
        let key = day.date.to_string();
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        let row = ledger_days::ActiveModel {
            day: Set(key.clone()),
            previous_root: Set(day.previous.clone()),
            root: Set(day.root.clone()),
            releases: Set(count(day.releases.len())),
            late: Set(count(day.late.len())),
            sealed_at: Set(Utc::now()),
        };
        let inserted = ledger_days::Entity::insert(row)
            .on_conflict(OnConflict::column(ledger_days::Column::Day).do_nothing().to_owned())
            .exec_without_returning(&txn)
            .await
            .map_err(db_err)?;
        if inserted == 0 {
            txn.rollback().await.map_err(db_err)?;
            return Ok(false);
        }
        let entries: Vec<ledger_entries::ActiveModel> = day
            .releases
            .iter()
            .map(|e| (e, false))
            .chain(day.late.iter().map(|e| (e, true)))
            .map(|(e, late)| ledger_entries::ActiveModel {
                series: Set(e.series.clone()),
                published_at_us: Set(e.published_at.timestamp_micros()),
                digest: Set(e.digest.clone()),
                day: Set(key.clone()),
                late: Set(late),
            })
            .collect();
        // A release listed twice would be a fault: the insert fails and the
        // whole day with it (dropping the transaction rolls it back).
        for chunk in entries.chunks(ENTRY_CHUNK) {
            ledger_entries::Entity::insert_many(chunk.to_vec())
                .exec_without_returning(&txn)
                .await
                .map_err(db_err)?;
        }
        txn.commit().await.map_err(db_err)?;
        Ok(true)
    }

    async fn day(&self, date_: NaiveDate) -> Result<Option<Day>, AccountsError> {
        let key = date_.to_string();
        let Some(row) = ledger_days::Entity::find_by_id(key.clone())
            .one(&self.db)
            .await
            .map_err(db_err)?
        else {
            return Ok(None);
        };
        let mut releases = Vec::new();
        let mut late = Vec::new();
        for m in ledger_entries::Entity::find()
            .filter(ledger_entries::Column::Day.eq(key))
            .all(&self.db)
            .await
            .map_err(db_err)?
        {
            let entry = Entry {
                published_at: instant(m.published_at_us)?,
                series: m.series,
                digest: m.digest,
            };
            if m.late { late.push(entry) } else { releases.push(entry) }
        }
        linecast_ledger::order(&mut releases);
        linecast_ledger::order(&mut late);
        Ok(Some(Day {
            date: date_,
            previous: row.previous_root,
            root: row.root,
            releases,
            late,
        }))
    }

    async fn roots(&self) -> Result<Vec<DayRoot>, AccountsError> {
        ledger_days::Entity::find()
            .order_by_asc(ledger_days::Column::Day)
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(to_root)
            .collect()
    }
}
