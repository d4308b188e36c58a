//! API keys: issue, list, find, rename, revoke and roll, for the customer's
//! own key routes, the portal, the admin CLI and the demo bootstrap alike. Owns the rules:
//! a key name is 1 to 100 printable characters after trimming (no control
//! characters, line breaks or bidi controls); a customer holds at most
//! `max_active` usable keys (operators are not capped); only the key's
//! SHA-256 hash and the four characters of its mask are stored; a key named
//! by its mask must match exactly one of the customer's keys; every change
//! writes one audit line, and an issued key is stored only with its line;
//! rolling a usable key issues its replacement and lets the old one work
//! for a grace period (`Grace`), never longer than it already would.
//! It knows nothing of HTTP or of the key cache (callers drop a renamed or
//! revoked key from their cache).

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};

use linecast_domain::text::is_unprintable;

use crate::key_material::{
    KeyRef, constant_time_eq, display_prefix, generate_key, hash_key, masked_from_prefix, parse_key_ref,
};
use crate::ports::accounts::{Accounts, AccountsError, ApiKeyRecord, Customer, KeyIssue, KeyIssued, NewApiKey};
use crate::ports::key_directory::KeyDirectory;

/// The name of a key issued without one (the API and the admin CLI alike).
pub const DEFAULT_NAME: &str = "API key";

/// Longest key name, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// Why a key operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("a key name must be 1 to {MAX_NAME_CHARS} printable characters")]
    InvalidName,
    #[error("a customer may hold at most {max} active API keys")]
    LimitReached { max: usize },
    #[error("no such key among the customer's keys")]
    NotFound,
    #[error("the masked key matches {count} of the customer's keys")]
    Ambiguous { count: usize },
    #[error("the key authenticating the request cannot revoke itself")]
    OwnKey,
    #[error("not a full key nor a masked one")]
    BadReference,
    #[error("the key is revoked or expired")]
    Unusable,
    #[error(transparent)]
    Accounts(#[from] AccountsError),
}

/// A key just issued: the full key exists only here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedKey {
    pub key: String,
    pub record: ApiKeyRecord,
}

/// How long a rolled key keeps working after its replacement is issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grace {
    /// Revoked at once.
    Now,
    OneHour,
    OneDay,
}

impl Grace {
    pub const ALL: [Grace; 3] = [Grace::Now, Grace::OneHour, Grace::OneDay];

    /// The form value (`now`, `1h`, `24h`).
    pub const fn code(self) -> &'static str {
        match self {
            Grace::Now => "now",
            Grace::OneHour => "1h",
            Grace::OneDay => "24h",
        }
    }

    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.code() == code)
    }

    pub fn duration(self) -> Duration {
        match self {
            Grace::Now => Duration::zero(),
            Grace::OneHour => Duration::hours(1),
            Grace::OneDay => Duration::hours(24),
        }
    }
}

/// The key use cases over the accounts port.
pub struct Keys {
    accounts: Arc<dyn Accounts>,
    /// `None` for operators.
    max_active: Option<usize>,
    /// The request path's key directory, told to forget a renamed or
    /// revoked key at once (other instances follow within its lifetime).
    directory: Option<Arc<dyn KeyDirectory>>,
}

impl Keys {
    /// Customer-facing keys: `max_active` is the most usable keys one
    /// customer may hold.
    pub fn new(accounts: Arc<dyn Accounts>, max_active: usize) -> Self {
        Self {
            accounts,
            max_active: Some(max_active),
            directory: None,
        }
    }

    /// The same, telling `directory` to forget each key it renames or
    /// revokes (the API's key cache).
    #[must_use]
    pub fn with_directory(mut self, directory: Arc<dyn KeyDirectory>) -> Self {
        self.directory = Some(directory);
        self
    }

    /// An operator's keys: not held to the active-key cap.
    pub fn uncapped(accounts: Arc<dyn Accounts>) -> Self {
        Self {
            accounts,
            max_active: None,
            directory: None,
        }
    }

    /// The most usable keys one customer may hold; `None` when uncapped.
    pub fn max_active(&self) -> Option<usize> {
        self.max_active
    }

    /// A key name as stored: trimmed, then 1 to 100 characters, none of them
    /// unprintable (`linecast_domain::text::is_unprintable`), so a name can
    /// neither break an audit line or a listing nor reorder its text.
    pub fn valid_name(raw: &str) -> Result<String, KeyError> {
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.chars().count() > MAX_NAME_CHARS || trimmed.chars().any(is_unprintable) {
            return Err(KeyError::InvalidName);
        }
        Ok(trimmed.to_owned())
    }

    /// Issues a key on the customer's tier. `origin` says in the audit line
    /// where the request came from (`api`, `linecast-admin`, `demo`). The cap
    /// check, the key and its audit line are one port call (one transaction),
    /// so concurrent issues cannot pass the cap and a key whose audit line
    /// failed is not stored.
    pub async fn issue(
        &self,
        customer: &Customer,
        name: &str,
        expires_at: Option<DateTime<Utc>>,
        origin: &str,
        now: DateTime<Utc>,
    ) -> Result<IssuedKey, KeyError> {
        let name = Self::valid_name(name)?;
        let key = generate_key()?;
        let prefix = display_prefix(&key).unwrap_or_default().to_owned();
        let audit_detail = format!("issued key '{name}' ({}) via {origin}", masked_from_prefix(&prefix));
        let issue = KeyIssue {
            key: NewApiKey {
                customer_id: customer.customer_id,
                key_hash: hash_key(&key),
                display_prefix: prefix,
                name,
                tier: customer.tier.clone(),
                expires_at,
            },
            max_active: self.max_active,
            audit_action: "issue".to_owned(),
            audit_detail,
        };
        match self.accounts.issue_key(issue, now).await? {
            KeyIssued::Stored(record) => Ok(IssuedKey { key, record }),
            KeyIssued::LimitReached => Err(KeyError::LimitReached {
                max: self.max_active.unwrap_or(usize::MAX),
            }),
        }
    }

    /// The customer's keys, revoked ones included, oldest first.
    pub async fn list(&self, customer_id: i64) -> Result<Vec<ApiKeyRecord>, KeyError> {
        Ok(self.accounts.list_keys(customer_id).await?)
    }

    /// The one key among the customer's own that `reference` names.
    pub async fn find(&self, customer_id: i64, reference: &KeyRef) -> Result<ApiKeyRecord, KeyError> {
        let keys = self.accounts.list_keys(customer_id).await?;
        let mut matches: Vec<ApiKeyRecord> = keys
            .into_iter()
            .filter(|k| match reference {
                KeyRef::Full { key_hash } => constant_time_eq(k.key_hash.as_bytes(), key_hash.as_bytes()),
                KeyRef::Masked { display_prefix } => &k.display_prefix == display_prefix,
            })
            .collect();
        match matches.len() {
            0 => Err(KeyError::NotFound),
            1 => matches.pop().ok_or(KeyError::NotFound),
            count => Err(KeyError::Ambiguous { count }),
        }
    }

    /// One of the customer's own keys by its id (the portal's forms name
    /// keys by id, which no two keys share, unlike a mask).
    pub async fn find_by_id(&self, customer_id: i64, key_id: i64) -> Result<ApiKeyRecord, KeyError> {
        self.accounts
            .list_keys(customer_id)
            .await?
            .into_iter()
            .find(|k| k.id == key_id)
            .ok_or(KeyError::NotFound)
    }

    /// Rolls one of the customer's usable keys: issues its replacement (the
    /// same name and expiry, shown once) and makes the old key stop after
    /// `grace` (revoked at once for [`Grace::Now`]); a key already expiring
    /// sooner keeps its expiry. The rolled key does not count towards the
    /// cap, so a customer at the cap can still roll. The replacement is
    /// stored with one `roll` audit line naming both keys and when the old
    /// one stops; the key directory forgets the old key at once. If the old
    /// key cannot be stopped, the replacement (never shown) is revoked.
    pub async fn roll_own(
        &self,
        customer: &Customer,
        key_id: i64,
        grace: Grace,
        origin: &str,
        now: DateTime<Utc>,
    ) -> Result<(ApiKeyRecord, IssuedKey), KeyError> {
        let old = self.find_by_id(customer.customer_id, key_id).await?;
        if !old.is_usable(now) {
            return Err(KeyError::Unusable);
        }
        let until = now + grace.duration();
        let stops = old.expires_at.map_or(until, |at| at.min(until));
        let name = Self::valid_name(&old.name)?;
        let key = generate_key()?;
        let prefix = display_prefix(&key).unwrap_or_default().to_owned();
        let audit_detail = format!(
            "rolled key '{name}' ({}) to {} via {origin}; the old key stops at {}",
            old.masked(),
            masked_from_prefix(&prefix),
            stops.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        );
        let issue = KeyIssue {
            key: NewApiKey {
                customer_id: customer.customer_id,
                key_hash: hash_key(&key),
                display_prefix: prefix,
                name,
                tier: customer.tier.clone(),
                expires_at: old.expires_at,
            },
            // The rolled key is still usable here and stops soon: it is the
            // one place a customer may hold one key more than the cap.
            max_active: self.max_active.map(|m| m.saturating_add(1)),
            audit_action: "roll".to_owned(),
            audit_detail,
        };
        let record = match self.accounts.issue_key(issue, now).await? {
            KeyIssued::Stored(record) => record,
            KeyIssued::LimitReached => {
                return Err(KeyError::LimitReached {
                    max: self.max_active.unwrap_or(usize::MAX),
                });
            }
        };
        let stopped = if grace == Grace::Now {
            self.accounts.revoke_key(old.id, now).await
        } else {
            self.accounts.set_key_expiry(old.id, until).await
        };
        self.forget(&old).await;
        if let Err(e) = stopped {
            // The replacement is never shown, so it must not stay usable
            // (best effort: the store has just failed once).
            let _ = self.revoke(&record, origin, now).await;
            return Err(e.into());
        }
        Ok((old, IssuedKey { key, record }))
    }

    /// Renames one of the customer's keys; returns the new name.
    pub async fn rename(
        &self,
        key: &ApiKeyRecord,
        new_name: &str,
        origin: &str,
        now: DateTime<Utc>,
    ) -> Result<String, KeyError> {
        let new_name = Self::valid_name(new_name)?;
        self.accounts.rename_key(key.id, &new_name).await?;
        let detail = format!(
            "renamed key ({}) '{}' -> '{new_name}' via {origin}",
            key.masked(),
            key.name
        );
        self.accounts
            .audit(key.customer_id, Some(key.id), "rename", &detail, now)
            .await?;
        self.forget(key).await;
        Ok(new_name)
    }

    /// A customer renaming one of its own keys, named by its full or masked
    /// form (`reference` as sent): the name is checked first, then the
    /// reference; returns the key (as it was) and the new name.
    pub async fn rename_own(
        &self,
        customer_id: i64,
        reference: &str,
        new_name: &str,
        origin: &str,
        now: DateTime<Utc>,
    ) -> Result<(ApiKeyRecord, String), KeyError> {
        Self::valid_name(new_name)?;
        let reference = parse_key_ref(reference).ok_or(KeyError::BadReference)?;
        let key = self.find(customer_id, &reference).await?;
        let name = self.rename(&key, new_name, origin, now).await?;
        Ok((key, name))
    }

    /// A customer revoking one of its own keys with another: the key that
    /// authenticates the request (`by_key_id`) cannot revoke itself.
    pub async fn revoke_own(
        &self,
        customer_id: i64,
        reference: &str,
        by_key_id: i64,
        origin: &str,
        now: DateTime<Utc>,
    ) -> Result<ApiKeyRecord, KeyError> {
        let reference = parse_key_ref(reference).ok_or(KeyError::BadReference)?;
        let key = self.find(customer_id, &reference).await?;
        if key.id == by_key_id {
            return Err(KeyError::OwnKey);
        }
        self.revoke(&key, origin, now).await?;
        Ok(key)
    }

    async fn forget(&self, key: &ApiKeyRecord) {
        if let Some(directory) = &self.directory {
            directory.forget(&key.key_hash).await;
        }
    }

    /// Revokes a key. Revoking a revoked key changes nothing and writes no
    /// audit line; the answer is when it was revoked and whether it already was.
    pub async fn revoke(
        &self,
        key: &ApiKeyRecord,
        origin: &str,
        now: DateTime<Utc>,
    ) -> Result<(DateTime<Utc>, bool), KeyError> {
        if let Some(at) = key.revoked_at {
            return Ok((at, true));
        }
        self.accounts.revoke_key(key.id, now).await?;
        let detail = format!("revoked key '{}' ({}) via {origin}", key.name, key.masked());
        self.accounts
            .audit(key.customer_id, Some(key.id), "revoke", &detail, now)
            .await?;
        self.forget(key).await;
        Ok((now, false))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::TimeZone;

    use super::*;
    use crate::key_material::parse_key_ref;
    use crate::ports::accounts::SubscriptionStatus;
    use crate::testing::MemoryAccounts;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
    }

    async fn setup(max: usize) -> (Arc<MemoryAccounts>, Keys, Customer) {
        let accounts = Arc::new(MemoryAccounts::new());
        let customer = accounts
            .seed_customer("a@example.com", "ai", SubscriptionStatus::Active, 1000, now())
            .await
            .unwrap();
        let keys = Keys::new(accounts.clone(), max);
        (accounts, keys, customer)
    }

    #[tokio::test]
    async fn an_issued_key_is_stored_only_as_its_hash_and_mask_and_audited() {
        let (accounts, keys, customer) = setup(5).await;
        let issued = keys.issue(&customer, "  ci runner ", None, "api", now()).await.unwrap();
        assert!(issued.key.starts_with("sk_service_"));
        assert_eq!(issued.record.name, "ci runner");
        assert_eq!(issued.record.tier, "ai");
        assert_ne!(issued.record.key_hash, issued.key);
        assert_eq!(issued.record.key_hash.len(), 64);
        assert_eq!(issued.record.display_prefix, &issued.key[11..15]);
        let log = accounts.audit_log(customer.customer_id).await.unwrap();
        assert_eq!(log.len(), 1);
        assert_eq!(log[0].action, "issue");
        assert!(log[0].detail.ends_with("via api"), "{}", log[0].detail);
    }

    #[tokio::test]
    async fn names_are_trimmed_and_must_be_one_to_a_hundred_characters() {
        assert_eq!(Keys::valid_name(" x ").unwrap(), "x");
        assert_eq!(Keys::valid_name(&"é".repeat(100)).unwrap().chars().count(), 100);
        assert_eq!(Keys::valid_name("   "), Err(KeyError::InvalidName));
        assert_eq!(Keys::valid_name(&"a".repeat(101)), Err(KeyError::InvalidName));
    }

    #[test]
    fn names_with_line_breaks_control_characters_separators_or_bidi_controls_are_refused() {
        for bad in [
            "a\nb",
            "a\rb",
            "tab\there",
            "\u{202E}evil",
            "\u{2066}x",
            "x\u{0085}y",
            "\u{2028}",
            "para\u{2029}graph",
            "nul\u{0}",
            "del\u{7F}",
            "mark\u{200E}",
            "mark\u{200F}",
            "arabic\u{061C}mark",
            "\u{202A}embed",
            "pop\u{202C}",
            "\u{2069}isolate",
            "[ok]\n[audit] forged",
        ] {
            assert_eq!(Keys::valid_name(bad), Err(KeyError::InvalidName), "{bad:?}");
        }
    }

    #[test]
    fn names_in_any_script_with_emoji_up_to_a_hundred_characters_are_accepted() {
        for good in [
            "Équipe ü 日本",
            "deploy 🚀 bot",
            "family 👩\u{200D}👩\u{200D}👧",
            "O'Brien \"prod\" \\ key/1",
            "Ελληνικά Кириллица עברית",
        ] {
            assert_eq!(Keys::valid_name(good).as_deref(), Ok(good), "{good:?}");
        }
        let hundred = "日".repeat(100);
        assert_eq!(Keys::valid_name(&format!("  {hundred}\t")), Ok(hundred));
    }

    #[tokio::test]
    async fn a_key_whose_audit_line_cannot_be_written_is_not_stored() {
        let (accounts, keys, customer) = setup(5).await;
        accounts.set_audit_failing(true);
        let refused = keys.issue(&customer, "one", None, "api", now()).await;
        assert!(
            matches!(refused, Err(KeyError::Accounts(AccountsError::Unavailable(_)))),
            "{refused:?}"
        );
        accounts.set_audit_failing(false);
        assert_eq!(keys.list(customer.customer_id).await.unwrap(), []);
        assert_eq!(accounts.audit_log(customer.customer_id).await.unwrap(), []);
    }

    #[tokio::test]
    async fn the_issue_audit_line_names_the_key_its_mask_and_the_origin() {
        let (accounts, keys, customer) = setup(5).await;
        let issued = keys
            .issue(&customer, "ci", None, "linecast-admin", now())
            .await
            .unwrap();
        let log = accounts.audit_log(customer.customer_id).await.unwrap();
        let mask = format!("sk_service_{}*****", &issued.key[11..15]);
        assert_eq!(log[0].detail, format!("issued key 'ci' ({mask}) via linecast-admin"));
        assert_eq!(log[0].key_id, Some(issued.record.id));
    }

    #[tokio::test]
    async fn an_operator_is_not_held_to_the_cap() {
        let (accounts, _, customer) = setup(1).await;
        let operator = Keys::uncapped(accounts.clone());
        for name in ["one", "two", "three"] {
            operator
                .issue(&customer, name, None, "linecast-admin", now())
                .await
                .unwrap();
        }
        assert_eq!(keys_usable(&accounts, &customer).await, 3);
        let capped = Keys::new(accounts.clone(), 3);
        assert_eq!(
            capped.issue(&customer, "four", None, "api", now()).await,
            Err(KeyError::LimitReached { max: 3 })
        );
    }

    #[tokio::test]
    async fn expired_keys_do_not_count_towards_the_cap() {
        let (accounts, keys, customer) = setup(1).await;
        let soon = now() + chrono::Duration::minutes(1);
        keys.issue(&customer, "short", Some(soon), "api", now()).await.unwrap();
        assert_eq!(
            keys.issue(&customer, "next", None, "api", now()).await,
            Err(KeyError::LimitReached { max: 1 })
        );
        // At the expiry instant the key is no longer usable.
        assert!(keys.issue(&customer, "next", None, "api", soon).await.is_ok());
        assert_eq!(accounts.audit_log(customer.customer_id).await.unwrap().len(), 2);
    }

    async fn keys_usable(accounts: &MemoryAccounts, customer: &Customer) -> usize {
        accounts
            .list_keys(customer.customer_id)
            .await
            .unwrap()
            .iter()
            .filter(|k| k.is_usable(now()))
            .count()
    }

    #[tokio::test]
    async fn the_active_key_cap_counts_usable_keys_only() {
        let (_, keys, customer) = setup(2).await;
        let first = keys.issue(&customer, "one", None, "api", now()).await.unwrap();
        keys.issue(&customer, "two", None, "api", now()).await.unwrap();
        assert_eq!(
            keys.issue(&customer, "three", None, "api", now()).await,
            Err(KeyError::LimitReached { max: 2 })
        );
        keys.revoke(&first.record, "api", now()).await.unwrap();
        assert!(keys.issue(&customer, "three", None, "api", now()).await.is_ok());
    }

    #[tokio::test]
    async fn a_key_is_found_by_its_full_value_or_an_unambiguous_mask() {
        let (_, keys, customer) = setup(5).await;
        let issued = keys.issue(&customer, "one", None, "api", now()).await.unwrap();
        let full = parse_key_ref(&issued.key).unwrap();
        assert_eq!(
            keys.find(customer.customer_id, &full).await.unwrap().id,
            issued.record.id
        );
        let masked = parse_key_ref(&issued.record.masked()).unwrap();
        assert_eq!(
            keys.find(customer.customer_id, &masked).await.unwrap().id,
            issued.record.id
        );
        let other = parse_key_ref("sk_service_ZZZZ*****").unwrap();
        assert_eq!(keys.find(customer.customer_id, &other).await, Err(KeyError::NotFound));
        assert_eq!(
            keys.find(customer.customer_id + 1, &full).await,
            Err(KeyError::NotFound)
        );
    }

    #[tokio::test]
    async fn renaming_keeps_the_hash_and_revoking_twice_keeps_the_first_instant() {
        let (accounts, keys, customer) = setup(5).await;
        let issued = keys.issue(&customer, "one", None, "api", now()).await.unwrap();
        assert_eq!(keys.rename(&issued.record, " two ", "api", now()).await.unwrap(), "two");
        let renamed = keys.list(customer.customer_id).await.unwrap().remove(0);
        assert_eq!(renamed.name, "two");
        assert_eq!(renamed.key_hash, issued.record.key_hash);
        let (at, already) = keys.revoke(&renamed, "api", now()).await.unwrap();
        assert_eq!((at, already), (now(), false));
        let revoked = keys.list(customer.customer_id).await.unwrap().remove(0);
        assert!(!revoked.is_usable(now()));
        let later = now() + chrono::Duration::hours(1);
        assert_eq!(keys.revoke(&revoked, "api", later).await.unwrap(), (now(), true));
        let actions: Vec<String> = accounts
            .audit_log(customer.customer_id)
            .await
            .unwrap()
            .into_iter()
            .map(|a| a.action)
            .collect();
        assert_eq!(actions, ["issue", "rename", "revoke"]);
    }

    /// Stores a key with a chosen value, so two keys can share a mask.
    async fn stored(accounts: &MemoryAccounts, customer: &Customer, full_key: &str) -> ApiKeyRecord {
        let issue = KeyIssue {
            key: NewApiKey {
                customer_id: customer.customer_id,
                key_hash: hash_key(full_key),
                display_prefix: display_prefix(full_key).unwrap().to_owned(),
                name: "k".into(),
                tier: "ai".into(),
                expires_at: None,
            },
            max_active: None,
            audit_action: "issue".into(),
            audit_detail: "seeded".into(),
        };
        match accounts.issue_key(issue, now()).await.unwrap() {
            KeyIssued::Stored(record) => record,
            KeyIssued::LimitReached => panic!("uncapped"),
        }
    }

    #[tokio::test]
    async fn a_mask_shared_by_two_keys_is_ambiguous_but_a_full_key_picks_its_own_record() {
        let (accounts, keys, customer) = setup(5).await;
        let a = format!("sk_service_AbCd{}", "x".repeat(36));
        let b = format!("sk_service_AbCd{}", "y".repeat(36));
        stored(&accounts, &customer, &a).await;
        let second = stored(&accounts, &customer, &b).await;
        let masked = parse_key_ref("sk_service_AbCd*****").unwrap();
        assert_eq!(
            keys.find(customer.customer_id, &masked).await,
            Err(KeyError::Ambiguous { count: 2 })
        );
        let full = parse_key_ref(&b).unwrap();
        assert_eq!(keys.find(customer.customer_id, &full).await.unwrap().id, second.id);
    }

    /// A roll replaces a key without a gap: the replacement works at once,
    /// the old key until the grace ends, never later than it already would.
    #[tokio::test]
    async fn a_rolled_key_works_until_its_grace_ends_and_its_replacement_keeps_name_and_expiry() {
        let (accounts, keys, customer) = setup(1).await;
        let old = keys.issue(&customer, "ci", None, "api", now()).await.unwrap();
        // At the cap of one, a roll still goes through.
        let (rolled, new) = keys
            .roll_own(&customer, old.record.id, Grace::OneHour, "portal", now())
            .await
            .unwrap();
        assert_eq!(rolled.id, old.record.id);
        assert_ne!(new.key, old.key);
        assert_eq!((new.record.name.as_str(), new.record.expires_at), ("ci", None));
        let listed = keys.list(customer.customer_id).await.unwrap();
        let hour = now() + Duration::hours(1);
        assert_eq!(listed[0].expires_at, Some(hour));
        assert!(listed[0].is_usable(hour - Duration::seconds(1)) && !listed[0].is_usable(hour));
        assert!(listed[1].is_usable(hour));
        // The cap still holds for a plain issue.
        assert_eq!(
            keys.issue(&customer, "more", None, "api", now()).await,
            Err(KeyError::LimitReached { max: 1 })
        );
        let log = accounts.audit_log(customer.customer_id).await.unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log[1].action, "roll");
        assert_eq!(log[1].key_id, Some(new.record.id));
        assert_eq!(
            log[1].detail,
            format!(
                "rolled key 'ci' ({}) to {} via portal; the old key stops at 2026-11-22T13:00:00Z",
                old.record.masked(),
                new.record.masked()
            )
        );

        // A key expiring sooner than the grace keeps its expiry, and so
        // does its replacement; rolling it "now" revokes it.
        let soon = now() + Duration::minutes(10);
        let short = Keys::new(accounts.clone(), 5)
            .issue(&customer, "short", Some(soon), "api", now())
            .await
            .unwrap();
        let big = Keys::new(accounts.clone(), 5);
        let (_, replacement) = big
            .roll_own(&customer, short.record.id, Grace::OneDay, "portal", now())
            .await
            .unwrap();
        assert_eq!(replacement.record.expires_at, Some(soon));
        let short_now = big.find_by_id(customer.customer_id, short.record.id).await.unwrap();
        assert_eq!(short_now.expires_at, Some(soon));
        big.roll_own(&customer, replacement.record.id, Grace::Now, "portal", now())
            .await
            .unwrap();
        let gone = big
            .find_by_id(customer.customer_id, replacement.record.id)
            .await
            .unwrap();
        assert!(gone.revoked_at.is_some() && !gone.is_usable(now()));
        // A revoked, expired or someone else's key is not rolled.
        assert_eq!(
            big.roll_own(&customer, replacement.record.id, Grace::Now, "portal", now())
                .await
                .unwrap_err(),
            KeyError::Unusable
        );
        assert_eq!(
            big.roll_own(&customer, 999, Grace::Now, "portal", now())
                .await
                .unwrap_err(),
            KeyError::NotFound
        );
    }

    #[test]
    fn grace_periods_parse_from_their_codes_only() {
        for grace in Grace::ALL {
            assert_eq!(Grace::parse(grace.code()), Some(grace));
        }
        assert_eq!(Grace::parse("2h"), None);
        assert_eq!(Grace::OneDay.duration(), Duration::hours(24));
    }

    /// Records what the key directory is told to forget.
    #[derive(Default)]
    struct Forgetful(std::sync::Mutex<Vec<String>>);

    #[async_trait::async_trait]
    impl KeyDirectory for Forgetful {
        async fn lookup(
            &self,
            _key_hash: &str,
        ) -> Result<Option<crate::ports::key_directory::KeyEntry>, AccountsError> {
            Ok(None)
        }

        async fn forget(&self, key_hash: &str) {
            self.0.lock().unwrap().push(key_hash.to_owned());
        }
    }

    #[tokio::test]
    async fn a_customer_renames_and_revokes_its_own_keys_and_the_directory_forgets_each_at_once() {
        let accounts = Arc::new(MemoryAccounts::new());
        let customer = accounts
            .seed_customer("own@example.com", "ai", SubscriptionStatus::Active, 1000, now())
            .await
            .unwrap();
        let directory = Arc::new(Forgetful::default());
        let keys = Keys::new(accounts.clone(), 5).with_directory(directory.clone());
        let using = keys.issue(&customer, "laptop", None, "test", now()).await.unwrap();
        let other = keys.issue(&customer, "server", None, "test", now()).await.unwrap();
        let id = customer.customer_id;

        // The name is checked before the reference, and a malformed
        // reference is its own refusal.
        assert_eq!(
            keys.rename_own(id, "not-a-key", "a\nb", "test", now())
                .await
                .unwrap_err(),
            KeyError::InvalidName
        );
        assert_eq!(
            keys.rename_own(id, "not-a-key", "fine", "test", now())
                .await
                .unwrap_err(),
            KeyError::BadReference
        );
        let (renamed, name) = keys
            .rename_own(id, &other.record.masked(), "  old server ", "test", now())
            .await
            .unwrap();
        assert_eq!((renamed.id, name.as_str()), (other.record.id, "old server"));

        // The key authenticating the request cannot revoke itself.
        assert_eq!(
            keys.revoke_own(id, &using.key, using.record.id, "test", now())
                .await
                .unwrap_err(),
            KeyError::OwnKey
        );
        let revoked = keys
            .revoke_own(id, &other.key, using.record.id, "test", now())
            .await
            .unwrap();
        assert_eq!(revoked.id, other.record.id);
        assert!(!accounts.list_keys(id).await.unwrap()[1].is_usable(now()));
        // Renamed, then revoked: forgotten twice, the self-revoke never.
        assert_eq!(
            directory.0.lock().unwrap().as_slice(),
            [other.record.key_hash.clone(), other.record.key_hash.clone()]
        );
    }
}
