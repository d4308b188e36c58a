//! An in-memory `UsageMeter` for tests of the limiters and of the apps that
//! use them (feature `testing`). It can be told to fail, to exercise the
//! write-behind's keep-on-failure rule.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::{AccountsError, Month, UsageMeter};

#[derive(Default)]
struct Counts {
    usage: HashMap<(i64, Month), u64>,
    refreshes: HashMap<(i64, Month), u32>,
}

/// Usage counters in a map; batches are all-or-nothing like the database's.
#[derive(Default)]
pub struct FakeMeter {
    counts: Mutex<Counts>,
    failing: AtomicBool,
    batches: AtomicU64,
    reads: AtomicU64,
}

impl FakeMeter {
    pub fn new() -> Self {
        Self::default()
    }

    /// While set, every call fails with `Unavailable`.
    pub fn set_failing(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// The persisted count, bypassing `failing`.
    pub fn persisted(&self, customer_id: i64, month: Month) -> u64 {
        self.lock().usage.get(&(customer_id, month)).copied().unwrap_or(0)
    }

    /// Sets a persisted count directly (a prior month's history).
    pub fn set_persisted(&self, customer_id: i64, month: Month, n: u64) {
        self.lock().usage.insert((customer_id, month), n);
    }

    /// Successful `add_usage_batch` calls so far.
    pub fn batches(&self) -> u64 {
        self.batches.load(Ordering::SeqCst)
    }

    /// `get_usage` calls so far, failed ones included.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::SeqCst)
    }

    fn lock(&self) -> MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn check(&self) -> Result<(), AccountsError> {
        if self.failing.load(Ordering::SeqCst) {
            Err(AccountsError::Unavailable("fake meter told to fail".into()))
        } else {
            Ok(())
        }
    }
}

#[async_trait]
impl UsageMeter for FakeMeter {
    async fn add_usage(&self, customer_id: i64, month: Month, n: u64) -> Result<u64, AccountsError> {
        self.check()?;
        let mut counts = self.lock();
        let slot = counts.usage.entry((customer_id, month)).or_insert(0);
        *slot += n;
        Ok(*slot)
    }

    async fn add_usage_batch(&self, increments: &[(i64, Month, u64)]) -> Result<(), AccountsError> {
        self.check()?;
        let mut counts = self.lock();
        for &(customer_id, month, n) in increments {
            *counts.usage.entry((customer_id, month)).or_insert(0) += n;
        }
        self.batches.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    async fn get_usage(&self, customer_id: i64, month: Month) -> Result<u64, AccountsError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        self.check()?;
        Ok(self.persisted(customer_id, month))
    }

    async fn try_consume_refresh(
        &self,
        customer_id: i64,
        month: Month,
        limit: u32,
        _now: DateTime<Utc>,
    ) -> Result<Option<u32>, AccountsError> {
        self.check()?;
        let mut counts = self.lock();
        let used = counts.refreshes.entry((customer_id, month)).or_insert(0);
        if *used >= limit {
            return Ok(None);
        }
        *used += 1;
        Ok(Some(*used))
    }

    async fn refreshes_used(&self, customer_id: i64, month: Month) -> Result<u32, AccountsError> {
        self.check()?;
        Ok(self.lock().refreshes.get(&(customer_id, month)).copied().unwrap_or(0))
    }
}
