//! `MemoryRequestLog`: the request log's store in memory, with the same
//! per-day cap and pruning rules as the database's.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ports::accounts::AccountsError;
use crate::ports::request_log::{DayCount, LoggedRequest, RequestFilter, RequestLogStore, RequestRow};
use crate::quota_calendar::{Day, day_of};

#[derive(Default)]
struct Inner {
    rows: Vec<(i64, RequestRow)>,
    /// (customer, day) to requests offered.
    offered: BTreeMap<(i64, Day), u64>,
    down: bool,
}

/// Stored requests in memory.
#[derive(Default)]
pub struct MemoryRequestLog {
    inner: Mutex<Inner>,
}

impl MemoryRequestLog {
    /// Every call fails with `Unavailable` while `down`.
    pub fn set_down(&self, down: bool) {
        self.lock_raw().down = down;
    }

    /// Rows stored, over every customer.
    pub fn len(&self) -> usize {
        self.lock_raw().rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock_raw(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock(&self) -> Result<MutexGuard<'_, Inner>, AccountsError> {
        let inner = self.lock_raw();
        if inner.down {
            return Err(AccountsError::Unavailable("memory request log is down".to_owned()));
        }
        Ok(inner)
    }
}

fn matches(customer: i64, row: &(i64, RequestRow), since: DateTime<Utc>, f: &RequestFilter) -> bool {
    let (c, r) = row;
    *c == customer
        && r.at >= since
        && f.key_id.is_none_or(|k| k == r.key_id)
        && f.status_class.is_none_or(|s| r.status / 100 == s)
        && f.route.as_ref().is_none_or(|route| *route == r.route)
}

#[async_trait]
impl RequestLogStore for MemoryRequestLog {
    async fn append_requests(&self, batch: &[LoggedRequest], cap_per_day: u64) -> Result<(), AccountsError> {
        let mut inner = self.lock()?;
        for r in batch {
            let offered = inner.offered.entry((r.customer_id, day_of(r.at))).or_insert(0);
            *offered += 1;
            if *offered <= cap_per_day {
                inner.rows.push((
                    r.customer_id,
                    RequestRow {
                        at: r.at,
                        key_id: r.key_id,
                        method: r.method.to_owned(),
                        route: r.route.to_owned(),
                        status: r.status,
                        duration_us: r.duration_us,
                        request_id: r.request_id.as_str().to_owned(),
                    },
                ));
            }
        }
        Ok(())
    }

    async fn prune_requests(&self, before: DateTime<Utc>) -> Result<u64, AccountsError> {
        let mut inner = self.lock()?;
        let was = inner.rows.len();
        inner.rows.retain(|(_, r)| r.at >= before);
        let first = day_of(before);
        inner.offered.retain(|(_, day), _| *day >= first);
        Ok((was - inner.rows.len()) as u64)
    }

    async fn requests(
        &self,
        customer_id: i64,
        since: DateTime<Utc>,
        filter: &RequestFilter,
        limit: u64,
    ) -> Result<Vec<RequestRow>, AccountsError> {
        let inner = self.lock()?;
        let mut rows: Vec<RequestRow> = inner
            .rows
            .iter()
            .filter(|row| matches(customer_id, row, since, filter))
            .map(|(_, r)| r.clone())
            .collect();
        rows.reverse();
        rows.sort_by_key(|r| std::cmp::Reverse(r.at));
        rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(rows)
    }

    async fn count_requests(
        &self,
        customer_id: i64,
        since: DateTime<Utc>,
        filter: &RequestFilter,
    ) -> Result<u64, AccountsError> {
        let inner = self.lock()?;
        Ok(inner
            .rows
            .iter()
            .filter(|row| matches(customer_id, row, since, filter))
            .count() as u64)
    }

    async fn requests_per_day(
        &self,
        customer_id: i64,
        from: Day,
    ) -> Result<(Vec<DayCount<i64>>, Vec<DayCount<String>>), AccountsError> {
        let inner = self.lock()?;
        let mut keys: BTreeMap<(Day, i64), u64> = BTreeMap::new();
        let mut routes: BTreeMap<(Day, String), u64> = BTreeMap::new();
        for (c, r) in &inner.rows {
            let day = day_of(r.at);
            if *c == customer_id && day >= from {
                *keys.entry((day, r.key_id)).or_insert(0) += 1;
                *routes.entry((day, r.route.clone())).or_insert(0) += 1;
            }
        }
        Ok((
            keys.into_iter()
                .map(|((day, by), requests)| DayCount { day, by, requests })
                .collect(),
            routes
                .into_iter()
                .map(|((day, by), requests)| DayCount { day, by, requests })
                .collect(),
        ))
    }

    async fn requests_offered(&self, customer_id: i64, from: Day) -> Result<Vec<(Day, u64)>, AccountsError> {
        let inner = self.lock()?;
        Ok(inner
            .offered
            .iter()
            .filter(|((c, day), _)| *c == customer_id && *day >= from)
            .map(|(&(_, day), &offered)| (day, offered))
            .collect())
    }
}
