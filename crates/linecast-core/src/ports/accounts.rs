//! The accounts port: customers, API keys, the key audit log, dataset
//! entitlements, the monthly usage meter and the dataset-refresh ledger.
//! A key's format, hash and mask are `key_material`; months, days and
//! their stored keys are `quota_calendar`.
//!
//! Only a key's SHA-256 hash is ever stored; the full key exists once, at
//! creation. Errors name domain failures and never carry driver types, so a
//! database outage reaches the HTTP layer as `Unavailable` (503), never as a
//! missing key (401).

use std::fmt;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_domain::Sport;

use crate::quota_calendar::{Day, Month};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccountsError {
    /// The customer, key or entitlement does not exist.
    #[error("not found")]
    NotFound,
    /// A uniqueness rule was broken (for example an email already in use).
    #[error("conflict: {0}")]
    Conflict(String),
    /// The database could not be reached or failed; the cause is for logs.
    #[error("accounts database unavailable: {0}")]
    Unavailable(String),
}

/// Subscription state of a customer: Stripe's subscription statuses,
/// stored and shown as Stripe spells them (set by the billing webhook, or
/// by hand with `subscription set`). Whether a state serves the API is one
/// rule, [`SubscriptionStatus::grants_access`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubscriptionStatus {
    Active,
    Trialing,
    PastDue,
    Unpaid,
    Incomplete,
    IncompleteExpired,
    Paused,
    Canceled,
}

impl SubscriptionStatus {
    /// Every status, in Stripe's documentation order.
    pub const ALL: [Self; 8] = [
        Self::Active,
        Self::Trialing,
        Self::PastDue,
        Self::Unpaid,
        Self::Incomplete,
        Self::IncompleteExpired,
        Self::Paused,
        Self::Canceled,
    ];

    /// The stored and public code (Stripe's).
    pub const fn code(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Trialing => "trialing",
            Self::PastDue => "past_due",
            Self::Unpaid => "unpaid",
            Self::Incomplete => "incomplete",
            Self::IncompleteExpired => "incomplete_expired",
            Self::Paused => "paused",
            Self::Canceled => "canceled",
        }
    }

    /// Parses a code exactly; `None` for anything else.
    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }

    /// Whether a customer in this state is served the subscriber routes:
    /// `active` and `trialing` are; every other state is refused (403), as a
    /// lapsed subscription always was.
    pub const fn grants_access(self) -> bool {
        matches!(self, Self::Active | Self::Trialing)
    }

    /// Whether the subscription has ended for good: `canceled` and
    /// `incomplete_expired` never come back (Stripe starts a new
    /// subscription instead).
    pub const fn is_terminal(self) -> bool {
        matches!(self, Self::Canceled | Self::IncompleteExpired)
    }
}

impl fmt::Display for SubscriptionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A customer account (serialized as the key relay passes it between
/// instances: `ports::key_relay`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Customer {
    pub customer_id: i64,
    pub email: String,
    pub name: String,
    /// `ai`, or a legacy tier (`data`, `basic`, `premium`) with the same access.
    pub tier: String,
    pub api_plan: Option<String>,
    pub api_subscription_status: SubscriptionStatus,
    pub subscription_status: SubscriptionStatus,
    pub monthly_limit: u64,
    pub created_at: DateTime<Utc>,
}

/// What `create_customer` needs; the id and `created_at` come from the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCustomer {
    pub email: String,
    pub name: String,
    pub tier: String,
    pub api_plan: Option<String>,
    pub subscription_status: SubscriptionStatus,
    pub monthly_limit: u64,
}

/// A stored API key. The full key is never stored, only its hash.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ApiKeyRecord {
    pub id: i64,
    pub customer_id: i64,
    /// SHA-256 hex of the full key (`hash_key`).
    pub key_hash: String,
    /// The first four body characters, for the masked form.
    pub display_prefix: String,
    pub name: String,
    pub tier: String,
    pub created_at: DateTime<Utc>,
    pub is_active: bool,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
}

impl ApiKeyRecord {
    /// A key authenticates only while active and not past `expires_at`.
    pub fn is_usable(&self, now: DateTime<Utc>) -> bool {
        self.is_active && self.revoked_at.is_none() && self.expires_at.is_none_or(|at| now < at)
    }
}

/// The key `issue_key` stores; the id, `created_at` and state come from the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiKey {
    pub customer_id: i64,
    /// From `hash_key`.
    pub key_hash: String,
    /// From `display_prefix`.
    pub display_prefix: String,
    pub name: String,
    pub tier: String,
    pub expires_at: Option<DateTime<Utc>>,
}

/// A key to issue: stored together with its audit line, in one transaction,
/// and only while the customer holds fewer than `max_active` usable keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyIssue {
    pub key: NewApiKey,
    /// The cap on the customer's usable keys (`ApiKeyRecord::is_usable` at
    /// `now`), counted in the same transaction as the insert; `None` for an
    /// operator, who is not capped.
    pub max_active: Option<usize>,
    /// The audit line's verb (`issue`).
    pub audit_action: String,
    /// The audit line's text; everything in it is known before the insert.
    pub audit_detail: String,
}

/// What `Accounts::issue_key` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyIssued {
    /// The key and its audit line are stored.
    Stored(ApiKeyRecord),
    /// The customer already holds `max_active` usable keys; nothing was written.
    LimitReached,
}

/// One append-only line of the key audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    pub id: i64,
    pub customer_id: i64,
    pub key_id: Option<i64>,
    /// A short verb such as `issue`, `rename`, `revoke`.
    pub action: String,
    pub detail: String,
    pub at: DateTime<Utc>,
}

/// The historical datasets a customer owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entitlement {
    pub customer_id: i64,
    pub owned_products: Vec<String>,
    pub owned_sports: Vec<Sport>,
    pub expires_at: Option<DateTime<Utc>>,
}

/// Customers, keys, the audit log and entitlements.
#[async_trait]
pub trait Accounts: Send + Sync {
    /// Fails with `Conflict` when the email is already used.
    async fn create_customer(&self, new: NewCustomer, now: DateTime<Utc>) -> Result<Customer, AccountsError>;
    async fn find_customer_by_email(&self, email: &str) -> Result<Option<Customer>, AccountsError>;
    async fn get_customer(&self, customer_id: i64) -> Result<Customer, AccountsError>;
    /// Every customer, oldest first.
    async fn list_customers(&self) -> Result<Vec<Customer>, AccountsError>;
    /// Sets both the API and the account subscription status.
    async fn set_subscription(&self, email: &str, status: SubscriptionStatus) -> Result<Customer, AccountsError>;

    /// Counts the customer's usable keys, stores the new active key and
    /// appends its audit line (with the new key's id), as one transaction:
    /// concurrent calls never take the customer past `max_active`, and if any
    /// step fails nothing is stored. `NotFound` if the customer does not
    /// exist, `Conflict` if the hash already exists.
    async fn issue_key(&self, issue: KeyIssue, now: DateTime<Utc>) -> Result<KeyIssued, AccountsError>;
    /// The key with that hash and its customer, whatever the key's state:
    /// the caller decides with `ApiKeyRecord::is_usable`.
    async fn find_key_by_hash(&self, key_hash: &str) -> Result<Option<(ApiKeyRecord, Customer)>, AccountsError>;
    /// The keys with these hashes and their customers, whatever the keys'
    /// state; hashes of no key are left out. One read for many keys: the
    /// key directory re-reads the keys in use before their entries expire
    /// with it. The default asks [`Accounts::find_key_by_hash`] per hash.
    async fn find_keys_by_hashes(&self, key_hashes: &[String]) -> Result<Vec<(ApiKeyRecord, Customer)>, AccountsError> {
        let mut found = Vec::with_capacity(key_hashes.len());
        for hash in key_hashes {
            found.extend(self.find_key_by_hash(hash).await?);
        }
        Ok(found)
    }
    /// A customer's keys, revoked ones included, oldest first.
    async fn list_keys(&self, customer_id: i64) -> Result<Vec<ApiKeyRecord>, AccountsError>;
    async fn rename_key(&self, key_id: i64, new_name: &str) -> Result<(), AccountsError>;
    /// Deactivates the key; revoking twice keeps the first `revoked_at`.
    async fn revoke_key(&self, key_id: i64, now: DateTime<Utc>) -> Result<(), AccountsError>;
    /// Makes the key stop authenticating at `at` (its `expires_at`). The
    /// expiry only ever moves earlier: a key already expiring before `at`
    /// keeps its expiry. `NotFound` if there is no such key.
    async fn set_key_expiry(&self, key_id: i64, at: DateTime<Utc>) -> Result<(), AccountsError>;
    /// Batch update of `last_used_at`; unknown ids are ignored.
    async fn touch_last_used(&self, key_ids: &[i64], now: DateTime<Utc>) -> Result<(), AccountsError>;

    /// Appends one audit line; lines are never updated or deleted.
    async fn audit(
        &self,
        customer_id: i64,
        key_id: Option<i64>,
        action: &str,
        detail: &str,
        now: DateTime<Utc>,
    ) -> Result<(), AccountsError>;
    /// A customer's audit lines in the order they were written.
    async fn audit_log(&self, customer_id: i64) -> Result<Vec<AuditEntry>, AccountsError>;

    /// Adds products and sports to what the customer owns (a union) and sets
    /// `expires_at`.
    async fn grant_entitlement(
        &self,
        customer_id: i64,
        products: &[String],
        sports: &[Sport],
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<Entitlement, AccountsError>;
    async fn get_entitlement(&self, customer_id: i64) -> Result<Option<Entitlement>, AccountsError>;

    /// A cheap reachability check for readiness.
    async fn ping(&self) -> Result<(), AccountsError>;
}

/// Monthly and daily request counters and the dataset-refresh ledger. Every
/// write is atomic (one statement, or one transaction for a batch), so
/// concurrent callers never lose or double a count.
#[async_trait]
pub trait UsageMeter: Send + Sync {
    /// Adds `n` to the customer's month and returns the new total. The
    /// monthly counter only (an operator's or a test's history); counted
    /// requests arrive through [`UsageMeter::add_usage_batch`].
    async fn add_usage(&self, customer_id: i64, month: Month, n: u64) -> Result<u64, AccountsError>;
    /// Adds many `(customer, day, n)` increments in one transaction
    /// (flushing an in-process buffer): each to the customer's counter of
    /// the day's month and to the day's own counter, both or neither, so a
    /// month's days always sum to what the batches added to the month.
    async fn add_usage_batch(&self, increments: &[(i64, Day, u64)]) -> Result<(), AccountsError>;
    async fn get_usage(&self, customer_id: i64, month: Month) -> Result<u64, AccountsError>;
    /// The customer's daily counts from `from` to `to` (both included),
    /// oldest first; days never counted are left out.
    async fn daily_usage(&self, customer_id: i64, from: Day, to: Day) -> Result<Vec<(Day, u64)>, AccountsError>;
    /// The customer's monthly counts from `from` to `to` (both included),
    /// oldest first; months never counted are left out.
    async fn monthly_usage(&self, customer_id: i64, from: Month, to: Month)
    -> Result<Vec<(Month, u64)>, AccountsError>;
    /// Takes one refresh if fewer than `limit` were used this month and
    /// returns the count used after it; `None` when the month is exhausted.
    async fn try_consume_refresh(
        &self,
        customer_id: i64,
        month: Month,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Option<u32>, AccountsError>;
    async fn refreshes_used(&self, customer_id: i64, month: Month) -> Result<u32, AccountsError>;
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use chrono::TimeZone;

    #[test]
    fn an_expired_or_revoked_key_is_not_usable() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let key = ApiKeyRecord {
            id: 1,
            customer_id: 1,
            key_hash: String::new(),
            display_prefix: "AbCd".into(),
            name: "k".into(),
            tier: "ai".into(),
            created_at: now,
            is_active: true,
            expires_at: None,
            revoked_at: None,
            last_used_at: None,
        };
        assert!(key.is_usable(now));
        assert!(
            !ApiKeyRecord {
                expires_at: Some(now),
                ..key.clone()
            }
            .is_usable(now)
        );
        assert!(
            ApiKeyRecord {
                expires_at: Some(now + chrono::Duration::seconds(1)),
                ..key.clone()
            }
            .is_usable(now)
        );
        assert!(
            !ApiKeyRecord {
                is_active: false,
                revoked_at: Some(now),
                ..key
            }
            .is_usable(now)
        );
    }

    #[test]
    fn subscription_codes_round_trip() {
        for s in SubscriptionStatus::ALL {
            assert_eq!(SubscriptionStatus::parse(s.code()), Some(s));
        }
        assert_eq!(SubscriptionStatus::parse("Active"), None);
        assert_eq!(SubscriptionStatus::parse("cancelled"), None);
    }

    /// Stripe's codes, spelled out here rather than read from the type:
    /// only `active` and `trialing` serve.
    #[test]
    fn only_active_and_trialing_grant_access() {
        let serving: Vec<&str> = SubscriptionStatus::ALL
            .into_iter()
            .filter(|s| s.grants_access())
            .map(SubscriptionStatus::code)
            .collect();
        assert_eq!(serving, ["active", "trialing"]);
        for code in [
            "past_due",
            "unpaid",
            "incomplete",
            "incomplete_expired",
            "paused",
            "canceled",
        ] {
            assert!(!SubscriptionStatus::parse(code).unwrap().grants_access(), "{code}");
        }
    }
}
