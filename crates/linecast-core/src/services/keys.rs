//! API keys: issue, list, find, rename and revoke, for the customer's own
//! key routes, the admin CLI and the demo bootstrap alike. Owns the rules:
//! a key name is 1 to 100 characters after trimming; a customer holds at most
//! `max_active` usable keys; only the key's SHA-256 hash and the four
//! characters of its mask are stored; a key named by its mask must match
//! exactly one of the customer's keys; every change writes one audit line.
//! It knows nothing of HTTP or of the key cache (callers drop a renamed or
//! revoked key from their cache).

use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::ports::accounts::{
    Accounts, AccountsError, ApiKeyRecord, Customer, KeyRef, NewApiKey, constant_time_eq, display_prefix, generate_key,
    hash_key,
};

/// Longest key name, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// Why a key operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("a key name must be 1 to {MAX_NAME_CHARS} characters")]
    InvalidName,
    #[error("a customer may hold at most {max} active API keys")]
    LimitReached { max: usize },
    #[error("no such key among the customer's keys")]
    NotFound,
    #[error("the masked key matches {count} of the customer's keys")]
    Ambiguous { count: usize },
    #[error(transparent)]
    Accounts(#[from] AccountsError),
}

/// A key just issued: the full key exists only here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedKey {
    pub key: String,
    pub record: ApiKeyRecord,
}

/// The key use cases over the accounts port.
pub struct Keys {
    accounts: Arc<dyn Accounts>,
    max_active: usize,
}

impl Keys {
    /// `max_active`: the most usable keys one customer may hold.
    pub fn new(accounts: Arc<dyn Accounts>, max_active: usize) -> Self {
        Self { accounts, max_active }
    }

    /// The most usable keys one customer may hold.
    pub fn max_active(&self) -> usize {
        self.max_active
    }

    /// A key name as stored: trimmed, 1 to 100 characters.
    pub fn valid_name(raw: &str) -> Result<String, KeyError> {
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.chars().count() > MAX_NAME_CHARS {
            return Err(KeyError::InvalidName);
        }
        Ok(trimmed.to_owned())
    }

    /// Issues a key on the customer's tier. `origin` says in the audit line
    /// where the request came from (`api`, `linecast-admin`, `demo`).
    pub async fn issue(
        &self,
        customer: &Customer,
        name: &str,
        expires_at: Option<DateTime<Utc>>,
        origin: &str,
        now: DateTime<Utc>,
    ) -> Result<IssuedKey, KeyError> {
        let name = Self::valid_name(name)?;
        let active = self
            .accounts
            .list_keys(customer.customer_id)
            .await?
            .iter()
            .filter(|k| k.is_usable(now))
            .count();
        if active >= self.max_active {
            return Err(KeyError::LimitReached { max: self.max_active });
        }
        let key = generate_key()?;
        let record = self
            .accounts
            .insert_key(
                NewApiKey {
                    customer_id: customer.customer_id,
                    key_hash: hash_key(&key),
                    display_prefix: display_prefix(&key).unwrap_or_default().to_owned(),
                    name,
                    tier: customer.tier.clone(),
                    expires_at,
                },
                now,
            )
            .await?;
        let detail = format!("issued key '{}' ({}) via {origin}", record.name, record.masked());
        self.accounts
            .audit(customer.customer_id, Some(record.id), "issue", &detail, now)
            .await?;
        Ok(IssuedKey { key, record })
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
        Ok(new_name)
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
        Ok((now, false))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::TimeZone;

    use super::*;
    use crate::ports::accounts::{SubscriptionStatus, parse_key_ref};
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
        accounts
            .insert_key(
                NewApiKey {
                    customer_id: customer.customer_id,
                    key_hash: hash_key(full_key),
                    display_prefix: display_prefix(full_key).unwrap().to_owned(),
                    name: "k".into(),
                    tier: "ai".into(),
                    expires_at: None,
                },
                now(),
            )
            .await
            .unwrap()
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
}
