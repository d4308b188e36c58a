//! The accounts port: customers, API keys, the key audit log, dataset
//! entitlements, the monthly usage meter and the dataset-refresh ledger, plus
//! the pure key helpers (format, hash, mask).
//!
//! Only a key's SHA-256 hash is ever stored; the full key exists once, at
//! creation. Errors name domain failures and never carry driver types, so a
//! database outage reaches the HTTP layer as `Unavailable` (503), never as a
//! missing key (401).

use std::fmt;

use async_trait::async_trait;
use chrono::{DateTime, Datelike, NaiveDate, TimeZone, Utc};
use linecast_domain::Sport;
use rand::TryRngCore;
use sha2::{Digest, Sha256};

/// Every key starts with this product prefix.
pub const KEY_PREFIX: &str = "sk_service_";
/// Random base62 characters in a newly generated key body (spec: at least 32).
pub const KEY_BODY_LEN: usize = 40;
/// Body characters kept in the masked form and in `display_prefix`.
pub const DISPLAY_PREFIX_LEN: usize = 4;
/// What replaces the rest of the body in the masked form.
pub const MASK_SUFFIX: &str = "*****";

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A calendar month as `(year, month 1..=12)`, the quota window in UTC.
pub type Month = (i32, u32);

/// A UTC calendar day: the unit of the daily usage counts.
pub type Day = NaiveDate;

/// The day an instant is counted on: its UTC calendar day.
pub fn day_of(now: DateTime<Utc>) -> Day {
    now.date_naive()
}

/// The quota month a day belongs to.
pub fn month_of_day(day: Day) -> Month {
    (day.year(), day.month())
}

/// The quota window: the UTC calendar month of `now`.
pub fn month_of(now: DateTime<Utc>) -> Month {
    month_of_day(day_of(now))
}

/// The first day of `month`; `None` only for a month outside chrono's range.
pub fn first_day((year, month): Month) -> Option<Day> {
    NaiveDate::from_ymd_opt(year, month, 1)
}

/// The month before `month`.
pub fn previous_month((year, month): Month) -> Month {
    if month <= 1 { (year - 1, 12) } else { (year, month - 1) }
}

/// First instant of the next UTC month: when quotas and refresh counts reset.
pub fn next_reset(now: DateTime<Utc>) -> DateTime<Utc> {
    next_month_start(month_of(now)).unwrap_or(now)
}

/// The first instant of the month after `month`, UTC (the one home of the
/// month rollover: quota resets and the Redis counters' expiry). `None` only
/// for a month outside chrono's range.
pub fn next_month_start((year, month): Month) -> Option<DateTime<Utc>> {
    let (y, m) = if month >= 12 {
        (year.checked_add(1)?, 1)
    } else {
        (year, month + 1)
    };
    Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).single()
}

/// Failure of an accounts or usage operation.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

/// A customer account.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
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

    /// The masked form shown in lists.
    pub fn masked(&self) -> String {
        masked_from_prefix(&self.display_prefix)
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

/// The stored month key, `YYYY-MM`.
pub fn month_key((year, month): Month) -> String {
    format!("{year:04}-{month:02}")
}

/// A stored month key read back; `None` unless it is `YYYY-MM`.
pub fn parse_month_key(key: &str) -> Option<Month> {
    let (year, month) = key.split_once('-')?;
    let (year, month): (i32, u32) = (year.parse().ok()?, month.parse().ok()?);
    (key.len() == 7 && (1..=12).contains(&month)).then_some((year, month))
}

/// The stored day key, `YYYY-MM-DD` (sorts as the days do).
pub fn day_key(day: Day) -> String {
    day.format("%Y-%m-%d").to_string()
}

/// A stored day key read back; `None` unless it is `YYYY-MM-DD`.
pub fn parse_day_key(key: &str) -> Option<Day> {
    NaiveDate::parse_from_str(key, "%Y-%m-%d").ok()
}

/// SHA-256 of the full key, lower-case hex: the only form that is stored.
pub fn hash_key(full_key: &str) -> String {
    KeyHash::of(full_key).as_str().to_owned()
}

/// [`hash_key`] held on the stack: the authenticated hot path hashes every
/// presented key and only needs to look it up.
#[derive(Clone, Copy)]
pub struct KeyHash([u8; 64]);

thread_local! {
    /// The digests of the keys this thread saw last (see [`KeyHash::of`]).
    static SEEN_DIGESTS: std::cell::RefCell<foldhash::HashMap<Box<str>, KeyHash>> =
        std::cell::RefCell::new(foldhash::HashMap::default());
}

impl KeyHash {
    /// SHA-256 of `full_key`, as 64 lower-case hex digits. A pure function,
    /// so each worker thread remembers the digests of the keys it saw last
    /// (at most [`Self::REMEMBERED`], then it starts over): a key in use is
    /// hashed once per thread, not on every request. The map is keyed by
    /// the full key and compared exactly (foldhash, randomly seeded per
    /// process: no client can aim keys at one bucket without the seed, and
    /// the map holds at most `REMEMBERED`), so it can never answer another key's
    /// digest; it authorizes nothing by itself, every lookup still goes to
    /// the key directory with the digest.
    pub fn of(full_key: &str) -> Self {
        Self::remembered(full_key).unwrap_or_else(|| Self::learn(full_key, has_key_shape(full_key)))
    }

    /// The digest of `presented` when it has a key's shape
    /// ([`has_key_shape`]), `None` otherwise. Only keys of that shape are
    /// remembered, so a remembered one is not checked again.
    pub fn of_key(presented: &str) -> Option<Self> {
        Self::remembered(presented).or_else(|| has_key_shape(presented).then(|| Self::learn(presented, true)))
    }

    fn remembered(full_key: &str) -> Option<Self> {
        SEEN_DIGESTS.with(|seen| seen.borrow().get(full_key).copied())
    }

    /// Computes the digest, and remembers it when `full_key` has a key's
    /// shape (`shaped`, as the caller checked it).
    fn learn(full_key: &str, shaped: bool) -> Self {
        let hash = Self::digest(full_key);
        if shaped {
            SEEN_DIGESTS.with(|seen| {
                let mut seen = seen.borrow_mut();
                if seen.len() >= Self::REMEMBERED {
                    seen.clear();
                }
                seen.insert(full_key.into(), hash);
            });
        }
        hash
    }

    /// Digests each worker thread remembers.
    pub const REMEMBERED: usize = 4096;

    /// SHA-256 of `full_key`, computed.
    fn digest(full_key: &str) -> Self {
        // Written through a stack buffer: `hex::encode` collects char by
        // char, which costs more than the digest.
        let mut out = [0_u8; 64];
        // 32 digest bytes always fit 64 hex digits.
        let _ = hex::encode_to_slice(Sha256::digest(full_key.as_bytes()), &mut out);
        Self(out)
    }

    pub fn as_str(&self) -> &str {
        // Hex digits are ASCII: the check is the ASCII fast path, never fails.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl std::fmt::Debug for KeyHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("KeyHash").field(&self.as_str()).finish()
    }
}

/// A new key: the prefix and `KEY_BODY_LEN` base62 characters from the OS RNG.
/// Fails only when the OS random source fails.
pub fn generate_key() -> Result<String, AccountsError> {
    let mut key = String::with_capacity(KEY_PREFIX.len() + KEY_BODY_LEN);
    key.push_str(KEY_PREFIX);
    let mut buf = [0u8; 64];
    while key.len() < KEY_PREFIX.len() + KEY_BODY_LEN {
        rand::rngs::OsRng
            .try_fill_bytes(&mut buf)
            .map_err(|e| AccountsError::Unavailable(format!("OS random source failed: {e}")))?;
        // Rejection sampling: 248 = 4 * 62, so accepted bytes map uniformly.
        for &b in buf.iter().filter(|&&b| b < 248) {
            if key.len() == KEY_PREFIX.len() + KEY_BODY_LEN {
                break;
            }
            key.push(char::from(BASE62[usize::from(b % 62)]));
        }
    }
    Ok(key)
}

/// Shortest and longest key body accepted as a key (issued keys have
/// `KEY_BODY_LEN`; the spec's keys have at least 32 characters).
pub const KEY_BODY_CHARS: std::ops::RangeInclusive<usize> = 32..=64;

/// The key body after the prefix, if `s` has the full-key shape: the
/// prefix, then `KEY_BODY_CHARS` base62 characters.
pub fn key_body(s: &str) -> Option<&str> {
    let body = s.strip_prefix(KEY_PREFIX)?;
    (KEY_BODY_CHARS.contains(&body.len()) && body.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(body)
}

/// Whether `s` could be a key at all (checked before any lookup).
pub fn has_key_shape(s: &str) -> bool {
    key_body(s).is_some()
}

/// The first four body characters of a full key, stored as `display_prefix`.
pub fn display_prefix(full_key: &str) -> Option<&str> {
    key_body(full_key).map(|body| &body[..DISPLAY_PREFIX_LEN])
}

/// The masked form of a full key: prefix, four body characters, `*****`.
/// `None` if `full_key` is not a key.
pub fn mask_key(full_key: &str) -> Option<String> {
    display_prefix(full_key).map(masked_from_prefix)
}

/// The masked form from a stored `display_prefix`.
pub fn masked_from_prefix(display_prefix: &str) -> String {
    format!("{KEY_PREFIX}{display_prefix}{MASK_SUFFIX}")
}

/// How a caller named a key in rename or revoke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRef {
    /// A full key, matched by its hash.
    Full { key_hash: String },
    /// A masked key, matched by `display_prefix` among the caller's keys.
    Masked { display_prefix: String },
}

/// Reads a full or masked key; `None` if it is neither.
pub fn parse_key_ref(s: &str) -> Option<KeyRef> {
    if key_body(s).is_some() {
        return Some(KeyRef::Full { key_hash: hash_key(s) });
    }
    let prefix = s.strip_prefix(KEY_PREFIX)?.strip_suffix(MASK_SUFFIX)?;
    (prefix.len() == DISPLAY_PREFIX_LEN && prefix.bytes().all(|b| b.is_ascii_alphanumeric())).then(|| KeyRef::Masked {
        display_prefix: prefix.to_owned(),
    })
}

/// Equality whose time does not depend on where two equal-length inputs
/// differ, for comparing secrets or their hashes.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    #[test]
    fn an_instant_is_counted_on_its_utc_day_and_that_days_month() {
        let last = Utc.with_ymd_and_hms(2026, 11, 30, 23, 59, 59).unwrap();
        assert_eq!(day_of(last), NaiveDate::from_ymd_opt(2026, 11, 30).unwrap());
        assert_eq!(month_of(last), (2026, 11));
        let next = last + chrono::TimeDelta::seconds(1);
        assert_eq!(day_of(next), NaiveDate::from_ymd_opt(2026, 12, 1).unwrap());
        assert_eq!(month_of(next), month_of_day(day_of(next)));
        assert_eq!(month_of(next), (2026, 12));
    }

    #[test]
    fn month_and_day_keys_read_back_and_nothing_else_does() {
        let day = NaiveDate::from_ymd_opt(2026, 3, 7).unwrap();
        assert_eq!(day_key(day), "2026-03-07");
        assert_eq!(parse_day_key("2026-03-07"), Some(day));
        assert_eq!(parse_month_key(&month_key((2026, 3))), Some((2026, 3)));
        for bad in ["2026-13", "2026-3", "26-03", "2026-03-07", ""] {
            assert_eq!(parse_month_key(bad), None, "{bad}");
        }
        assert_eq!(parse_day_key("2026-02-30"), None);
        assert_eq!(previous_month((2026, 1)), (2025, 12));
        assert_eq!(previous_month((2026, 11)), (2026, 10));
        assert_eq!(first_day((2026, 2)), NaiveDate::from_ymd_opt(2026, 2, 1));
    }

    /// The remembered digests are the digests: each of more keys than a
    /// thread remembers, asked twice in rounds (so some are answered from
    /// memory and some after the memory started over), is the SHA-256 of
    /// that key, computed here independently.
    #[test]
    fn a_remembered_key_digest_is_always_that_keys_sha256() {
        let keys: Vec<String> = (0..KeyHash::REMEMBERED + 500)
            .map(|i| format!("sk_service_{i:040}"))
            .collect();
        for _ in 0..2 {
            for key in &keys {
                let expected = hex::encode(sha2::Sha256::digest(key.as_bytes()));
                assert_eq!(KeyHash::of(key).as_str(), expected);
                assert_eq!(KeyHash::of(key).as_str(), expected, "asked again");
            }
        }
    }

    /// A string without a key's shape is never taken for a key, even
    /// after its digest was asked for; a key's digest is its SHA-256
    /// whether or not it was remembered.
    #[test]
    fn only_a_string_with_a_keys_shape_is_digested_as_a_key() {
        for not_a_key in [
            "not-a-key",
            "sk_service_short",
            "sk_service_!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
        ] {
            assert!(KeyHash::of_key(not_a_key).is_none(), "{not_a_key}");
            let _ = KeyHash::of(not_a_key);
            assert!(KeyHash::of_key(not_a_key).is_none(), "{not_a_key} after its digest");
        }
        let key = generate_key().unwrap();
        let expected = hex::encode(sha2::Sha256::digest(key.as_bytes()));
        for _ in 0..2 {
            assert_eq!(
                KeyHash::of_key(&key).map(|h| h.as_str().to_owned()),
                Some(expected.clone())
            );
        }
    }

    #[test]
    fn a_generated_key_is_the_prefix_and_forty_base62_characters() {
        let key = generate_key().unwrap();
        let body = key.strip_prefix(KEY_PREFIX).unwrap();
        assert_eq!(body.len(), KEY_BODY_LEN);
        assert!(body.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert!(key_body(&key).is_some());
    }

    #[test]
    fn two_generated_keys_differ() {
        assert_ne!(generate_key().unwrap(), generate_key().unwrap());
    }

    #[test]
    fn the_hash_is_lower_case_sha256_hex() {
        // SHA-256("abc") from FIPS 180-2.
        assert_eq!(
            hash_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_masked_form_keeps_four_body_characters_then_five_asterisks() {
        let key = format!("{KEY_PREFIX}AbCd{}", "x".repeat(36));
        assert_eq!(mask_key(&key).unwrap(), "sk_service_AbCd*****");
        assert_eq!(display_prefix(&key).unwrap(), "AbCd");
    }

    #[test]
    fn a_short_or_foreign_string_is_not_a_key() {
        assert!(mask_key("sk_service_short").is_none());
        assert!(mask_key(&format!("pk_live_{}", "a".repeat(40))).is_none());
        assert!(key_body(&format!("{KEY_PREFIX}{}!", "a".repeat(40))).is_none());
    }

    #[test]
    fn a_masked_key_parses_to_its_display_prefix() {
        assert_eq!(
            parse_key_ref("sk_service_AbCd*****"),
            Some(KeyRef::Masked {
                display_prefix: "AbCd".into()
            })
        );
        assert_eq!(parse_key_ref("sk_service_AbC*****"), None);
        assert_eq!(parse_key_ref("nonsense"), None);
    }

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
    fn the_month_key_is_zero_padded() {
        assert_eq!(month_key((2026, 3)), "2026-03");
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

    proptest! {
        /// Any full key parses back as a full-key reference carrying its own
        /// hash, and its mask parses as a masked reference to its prefix.
        #[test]
        fn full_and_masked_forms_of_any_key_parse_back(body in "[A-Za-z0-9]{32,64}") {
            let key = format!("{KEY_PREFIX}{body}");
            prop_assert_eq!(parse_key_ref(&key), Some(KeyRef::Full { key_hash: hash_key(&key) }));
            let masked = mask_key(&key).unwrap();
            prop_assert_eq!(parse_key_ref(&masked), Some(KeyRef::Masked { display_prefix: body[..4].to_owned() }));
        }

        /// Constant-time equality agrees with ordinary equality on every input.
        #[test]
        fn constant_time_eq_agrees_with_eq(a in proptest::collection::vec(any::<u8>(), 0..8), b in proptest::collection::vec(any::<u8>(), 0..8)) {
            prop_assert_eq!(constant_time_eq(&a, &b), a == b);
        }
    }
}
