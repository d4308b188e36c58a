//! `MemoryAccounts`: the accounts and usage ports in memory, with the
//! adapters' contracts (unique emails and key hashes, revoking twice keeps
//! the first instant, append-only audit, atomic refresh ledger, all-or-
//! nothing usage batches, a key issued with its cap check and audit line
//! under one lock or not at all). The one usage-meter twin: the limiters'
//! tests use it too, with `set_down` to exercise the write-behind's
//! keep-on-failure rule; `set_audit_failing` makes audit writes fail.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_domain::Sport;

use crate::ports::accounts::{
    Accounts, AccountsError, ApiKeyRecord, AuditEntry, Customer, Entitlement, KeyIssue, KeyIssued, NewCustomer,
    SubscriptionStatus, UsageMeter,
};
use crate::quota_calendar::{Day, Month, month_of_day};

#[derive(Default)]
struct Inner {
    customers: Vec<Customer>,
    keys: Vec<ApiKeyRecord>,
    audit: Vec<AuditEntry>,
    entitlements: HashMap<i64, Entitlement>,
    usage: HashMap<(i64, Month), u64>,
    daily: BTreeMap<(i64, Day), u64>,
    refreshes: HashMap<(i64, Month), u32>,
    /// `get_usage` calls, failed ones included.
    usage_reads: u64,
    down: bool,
    audit_failing: bool,
}

/// Customers, keys, audit, entitlements and usage in memory.
#[derive(Default)]
pub struct MemoryAccounts {
    inner: Mutex<Inner>,
}

impl MemoryAccounts {
    pub fn new() -> Self {
        Self::default()
    }

    /// Every call fails with `Unavailable` while `down`.
    pub fn set_down(&self, down: bool) {
        self.lock_raw().down = down;
    }

    /// Every audit write fails with `Unavailable` while `failing` (and so
    /// does issuing a key, which writes one); reads still answer.
    pub fn set_audit_failing(&self, failing: bool) {
        self.lock_raw().audit_failing = failing;
    }

    /// Seeds a customer named after its email, with no API plan.
    pub async fn seed_customer(
        &self,
        email: &str,
        tier: &str,
        status: SubscriptionStatus,
        monthly_limit: u64,
        now: DateTime<Utc>,
    ) -> Result<Customer, AccountsError> {
        let new = NewCustomer {
            email: email.to_owned(),
            name: email.to_owned(),
            tier: tier.to_owned(),
            api_plan: None,
            subscription_status: status,
            monthly_limit,
        };
        self.create_customer(new, now).await
    }

    /// The stored usage count, whether or not the twin is down.
    pub fn persisted(&self, customer_id: i64, month: Month) -> u64 {
        self.lock_raw().usage.get(&(customer_id, month)).copied().unwrap_or(0)
    }

    /// The stored count of one day, whether or not the twin is down.
    pub fn persisted_day(&self, customer_id: i64, day: Day) -> u64 {
        self.lock_raw().daily.get(&(customer_id, day)).copied().unwrap_or(0)
    }

    /// Sets a stored usage count directly (a prior month's history).
    pub fn set_persisted(&self, customer_id: i64, month: Month, n: u64) {
        self.lock_raw().usage.insert((customer_id, month), n);
    }

    /// `get_usage` calls so far, failed ones included.
    pub fn usage_reads(&self) -> u64 {
        self.lock_raw().usage_reads
    }

    fn lock_raw(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock(&self) -> Result<MutexGuard<'_, Inner>, AccountsError> {
        let inner = self.lock_raw();
        if inner.down {
            return Err(AccountsError::Unavailable("memory accounts are down".to_owned()));
        }
        Ok(inner)
    }
}

#[async_trait]
impl Accounts for MemoryAccounts {
    async fn create_customer(&self, new: NewCustomer, now: DateTime<Utc>) -> Result<Customer, AccountsError> {
        let mut inner = self.lock()?;
        if inner.customers.iter().any(|c| c.email.eq_ignore_ascii_case(&new.email)) {
            return Err(AccountsError::Conflict(format!("email {} is taken", new.email)));
        }
        let customer = Customer {
            customer_id: inner.customers.len() as i64 + 1,
            email: new.email,
            name: new.name,
            tier: new.tier,
            api_plan: new.api_plan,
            api_subscription_status: new.subscription_status,
            subscription_status: new.subscription_status,
            monthly_limit: new.monthly_limit,
            created_at: now,
        };
        inner.customers.push(customer.clone());
        Ok(customer)
    }

    async fn find_customer_by_email(&self, email: &str) -> Result<Option<Customer>, AccountsError> {
        let inner = self.lock()?;
        Ok(inner
            .customers
            .iter()
            .find(|c| c.email.eq_ignore_ascii_case(email))
            .cloned())
    }

    async fn get_customer(&self, customer_id: i64) -> Result<Customer, AccountsError> {
        let inner = self.lock()?;
        inner
            .customers
            .iter()
            .find(|c| c.customer_id == customer_id)
            .cloned()
            .ok_or(AccountsError::NotFound)
    }

    async fn list_customers(&self) -> Result<Vec<Customer>, AccountsError> {
        Ok(self.lock()?.customers.clone())
    }

    async fn set_subscription(&self, email: &str, status: SubscriptionStatus) -> Result<Customer, AccountsError> {
        let mut inner = self.lock()?;
        let customer = inner
            .customers
            .iter_mut()
            .find(|c| c.email.eq_ignore_ascii_case(email))
            .ok_or(AccountsError::NotFound)?;
        customer.api_subscription_status = status;
        customer.subscription_status = status;
        Ok(customer.clone())
    }

    async fn issue_key(&self, issue: KeyIssue, now: DateTime<Utc>) -> Result<KeyIssued, AccountsError> {
        let mut inner = self.lock()?;
        let new = issue.key;
        if !inner.customers.iter().any(|c| c.customer_id == new.customer_id) {
            return Err(AccountsError::NotFound);
        }
        if let Some(max) = issue.max_active {
            let usable = inner
                .keys
                .iter()
                .filter(|k| k.customer_id == new.customer_id && k.is_usable(now))
                .count();
            if usable >= max {
                return Ok(KeyIssued::LimitReached);
            }
        }
        if inner.keys.iter().any(|k| k.key_hash == new.key_hash) {
            return Err(AccountsError::Conflict("key hash exists".to_owned()));
        }
        // Checked before anything is written: the key and its line go in together.
        if inner.audit_failing {
            return Err(AccountsError::Unavailable("memory audit log is failing".to_owned()));
        }
        let record = ApiKeyRecord {
            id: inner.keys.len() as i64 + 1,
            customer_id: new.customer_id,
            key_hash: new.key_hash,
            display_prefix: new.display_prefix,
            name: new.name,
            tier: new.tier,
            created_at: now,
            is_active: true,
            expires_at: new.expires_at,
            revoked_at: None,
            last_used_at: None,
        };
        inner.keys.push(record.clone());
        let id = inner.audit.len() as i64 + 1;
        inner.audit.push(AuditEntry {
            id,
            customer_id: record.customer_id,
            key_id: Some(record.id),
            action: issue.audit_action,
            detail: issue.audit_detail,
            at: now,
        });
        Ok(KeyIssued::Stored(record))
    }

    async fn find_key_by_hash(&self, key_hash: &str) -> Result<Option<(ApiKeyRecord, Customer)>, AccountsError> {
        let inner = self.lock()?;
        Ok(inner.keys.iter().find(|k| k.key_hash == key_hash).and_then(|k| {
            inner
                .customers
                .iter()
                .find(|c| c.customer_id == k.customer_id)
                .map(|c| (k.clone(), c.clone()))
        }))
    }

    async fn list_keys(&self, customer_id: i64) -> Result<Vec<ApiKeyRecord>, AccountsError> {
        let inner = self.lock()?;
        Ok(inner
            .keys
            .iter()
            .filter(|k| k.customer_id == customer_id)
            .cloned()
            .collect())
    }

    async fn rename_key(&self, key_id: i64, new_name: &str) -> Result<(), AccountsError> {
        let mut inner = self.lock()?;
        let key = key_mut(&mut inner, key_id)?;
        new_name.clone_into(&mut key.name);
        Ok(())
    }

    async fn revoke_key(&self, key_id: i64, now: DateTime<Utc>) -> Result<(), AccountsError> {
        let mut inner = self.lock()?;
        let key = key_mut(&mut inner, key_id)?;
        key.is_active = false;
        key.revoked_at.get_or_insert(now);
        Ok(())
    }

    async fn set_key_expiry(&self, key_id: i64, at: DateTime<Utc>) -> Result<(), AccountsError> {
        let mut inner = self.lock()?;
        let key = key_mut(&mut inner, key_id)?;
        key.expires_at = Some(key.expires_at.map_or(at, |earlier| earlier.min(at)));
        Ok(())
    }

    async fn touch_last_used(&self, key_ids: &[i64], now: DateTime<Utc>) -> Result<(), AccountsError> {
        let mut inner = self.lock()?;
        for key in inner.keys.iter_mut().filter(|k| key_ids.contains(&k.id)) {
            key.last_used_at = Some(now);
        }
        Ok(())
    }

    async fn audit(
        &self,
        customer_id: i64,
        key_id: Option<i64>,
        action: &str,
        detail: &str,
        now: DateTime<Utc>,
    ) -> Result<(), AccountsError> {
        let mut inner = self.lock()?;
        if inner.audit_failing {
            return Err(AccountsError::Unavailable("memory audit log is failing".to_owned()));
        }
        let id = inner.audit.len() as i64 + 1;
        inner.audit.push(AuditEntry {
            id,
            customer_id,
            key_id,
            action: action.to_owned(),
            detail: detail.to_owned(),
            at: now,
        });
        Ok(())
    }

    async fn audit_log(&self, customer_id: i64) -> Result<Vec<AuditEntry>, AccountsError> {
        let inner = self.lock()?;
        Ok(inner
            .audit
            .iter()
            .filter(|a| a.customer_id == customer_id)
            .cloned()
            .collect())
    }

    async fn grant_entitlement(
        &self,
        customer_id: i64,
        products: &[String],
        sports: &[Sport],
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<Entitlement, AccountsError> {
        let mut inner = self.lock()?;
        let entitlement = inner.entitlements.entry(customer_id).or_insert_with(|| Entitlement {
            customer_id,
            owned_products: Vec::new(),
            owned_sports: Vec::new(),
            expires_at,
        });
        for product in products {
            if !entitlement.owned_products.contains(product) {
                entitlement.owned_products.push(product.clone());
            }
        }
        for sport in sports {
            if !entitlement.owned_sports.contains(sport) {
                entitlement.owned_sports.push(*sport);
            }
        }
        entitlement.expires_at = expires_at;
        Ok(entitlement.clone())
    }

    async fn get_entitlement(&self, customer_id: i64) -> Result<Option<Entitlement>, AccountsError> {
        Ok(self.lock()?.entitlements.get(&customer_id).cloned())
    }

    async fn ping(&self) -> Result<(), AccountsError> {
        self.lock().map(|_| ())
    }
}

#[async_trait]
impl UsageMeter for MemoryAccounts {
    async fn add_usage(&self, customer_id: i64, month: Month, n: u64) -> Result<u64, AccountsError> {
        let mut inner = self.lock()?;
        let used = inner.usage.entry((customer_id, month)).or_default();
        *used += n;
        Ok(*used)
    }

    async fn add_usage_batch(&self, increments: &[(i64, Day, u64)]) -> Result<(), AccountsError> {
        let mut inner = self.lock()?;
        for &(customer_id, day, n) in increments.iter().filter(|i| i.2 > 0) {
            *inner.usage.entry((customer_id, month_of_day(day))).or_default() += n;
            *inner.daily.entry((customer_id, day)).or_default() += n;
        }
        Ok(())
    }

    async fn get_usage(&self, customer_id: i64, month: Month) -> Result<u64, AccountsError> {
        self.lock_raw().usage_reads += 1;
        Ok(self.lock()?.usage.get(&(customer_id, month)).copied().unwrap_or(0))
    }

    async fn daily_usage(&self, customer_id: i64, from: Day, to: Day) -> Result<Vec<(Day, u64)>, AccountsError> {
        if from > to {
            return Ok(Vec::new());
        }
        let inner = self.lock()?;
        Ok(inner
            .daily
            .range((customer_id, from)..=(customer_id, to))
            .map(|(&(_, day), &n)| (day, n))
            .collect())
    }

    async fn monthly_usage(
        &self,
        customer_id: i64,
        from: Month,
        to: Month,
    ) -> Result<Vec<(Month, u64)>, AccountsError> {
        let inner = self.lock()?;
        let mut months: Vec<(Month, u64)> = inner
            .usage
            .iter()
            .filter(|&(&(c, m), _)| c == customer_id && (from..=to).contains(&m))
            .map(|(&(_, m), &n)| (m, n))
            .collect();
        months.sort_unstable();
        Ok(months)
    }

    async fn try_consume_refresh(
        &self,
        customer_id: i64,
        month: Month,
        limit: u32,
        _now: DateTime<Utc>,
    ) -> Result<Option<u32>, AccountsError> {
        let mut inner = self.lock()?;
        let used = inner.refreshes.entry((customer_id, month)).or_default();
        if *used >= limit {
            return Ok(None);
        }
        *used += 1;
        Ok(Some(*used))
    }

    async fn refreshes_used(&self, customer_id: i64, month: Month) -> Result<u32, AccountsError> {
        Ok(self.lock()?.refreshes.get(&(customer_id, month)).copied().unwrap_or(0))
    }
}

/// The stored key `key_id`, or `NotFound`.
fn key_mut(inner: &mut Inner, key_id: i64) -> Result<&mut ApiKeyRecord, AccountsError> {
    inner
        .keys
        .iter_mut()
        .find(|k| k.id == key_id)
        .ok_or(AccountsError::NotFound)
}
