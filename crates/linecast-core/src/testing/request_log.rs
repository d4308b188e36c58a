//! `MemoryRequestLog`: the request log's store in memory, with the same
//! per-day cap and pruning rules as the database's.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ports::accounts::AccountsError;
use crate::ports::request_log::{LoggedRequest, RequestLogStore, RequestRow};
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

#[async_trait]
impl RequestLogStore for MemoryRequestLog {
    async fn append_requests(&self, batch: Arc<Vec<LoggedRequest>>, cap_per_day: u64) -> Result<(), AccountsError> {
        let mut inner = self.lock()?;
        for r in batch.iter() {
            let offered = inner.offered.entry((r.customer_id, day_of(r.at()))).or_insert(0);
            *offered += 1;
            if *offered <= cap_per_day {
                inner.rows.push((
                    r.customer_id,
                    RequestRow {
                        at: r.at(),
                        key_id: r.key_id,
                        method: r.method.as_str().to_owned(),
                        route: r.route.as_str().to_owned(),
                        status: r.status,
                        duration_us: u64::from(r.duration_us),
                        request_id: r.request_id.to_string(),
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

    async fn requests_since(&self, customer_id: i64, since: DateTime<Utc>) -> Result<Vec<RequestRow>, AccountsError> {
        let inner = self.lock()?;
        Ok(inner
            .rows
            .iter()
            .filter(|(c, r)| *c == customer_id && r.at >= since)
            .map(|(_, r)| r.clone())
            .collect())
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
