//! A moka cache in front of key lookups. Revocation and subscription changes
//! made through this instance invalidate the entry at once; other instances
//! see them within `KEY_CACHE_TTL`.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use linecast_core::ports::key_directory::KeyDirectory;
use linecast_core::{Accounts, AccountsError, ApiKeyRecord, Customer};
use moka::future::Cache;

/// How long another instance may keep serving a revoked key.
pub const KEY_CACHE_TTL: Duration = Duration::from_secs(10);

type Entry = Option<Arc<(ApiKeyRecord, Customer)>>;

/// Key lookups by hash, cached (unknown keys too, so a flood of bad keys
/// does not reach the database on every request).
#[derive(Clone)]
pub struct KeyCache {
    accounts: Arc<dyn Accounts>,
    cache: Cache<String, Entry>,
}

impl KeyCache {
    pub fn new(accounts: Arc<dyn Accounts>) -> Self {
        Self {
            accounts,
            cache: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(KEY_CACHE_TTL)
                .build(),
        }
    }

    /// The key and its customer, whatever the key's state. Database errors
    /// are returned (and not cached) so the caller answers 503, never 401.
    pub async fn lookup(&self, key_hash: &str) -> Result<Entry, AccountsError> {
        if let Some(hit) = self.cache.get(key_hash).await {
            crate::metrics::key_cache("hit");
            return Ok(hit);
        }
        crate::metrics::key_cache("miss");
        let accounts = self.accounts.clone();
        let hash = key_hash.to_owned();
        self.cache
            .try_get_with(key_hash.to_owned(), async move {
                Ok(accounts.find_key_by_hash(&hash).await?.map(Arc::new))
            })
            .await
            .map_err(|e: Arc<AccountsError>| (*e).clone())
    }

    /// Whether `full_key` is cached as an existing key (whatever its state),
    /// without a lookup: lets known keys through while their address is
    /// refused further failed key checks.
    pub async fn knows(&self, full_key: &str) -> bool {
        matches!(
            self.cache
                .get(&linecast_core::ports::accounts::hash_key(full_key))
                .await,
            Some(Some(_))
        )
    }

    /// Drops one key's entry (after revoke or rename on this instance).
    pub async fn invalidate(&self, key_hash: &str) {
        self.cache.invalidate(key_hash).await;
    }

    /// Drops every entry (after a change to a customer, e.g. subscription).
    pub fn invalidate_all(&self) {
        self.cache.invalidate_all();
    }
}

#[async_trait]
impl KeyDirectory for KeyCache {
    async fn lookup(&self, key_hash: &str) -> Result<Entry, AccountsError> {
        KeyCache::lookup(self, key_hash).await
    }

    async fn forget(&self, key_hash: &str) {
        self.invalidate(key_hash).await;
    }
}
