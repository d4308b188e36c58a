//! A cache in front of key lookups. Revocation and subscription changes
//! made through this instance invalidate the entry at once; other instances
//! see them within `KEY_CACHE_TTL`.
//!
//! Two layers: a plain map read under a read lock answers hits (an entry
//! and the instant it expires: no bookkeeping per hit), and a moka cache
//! makes concurrent misses of one key a single database lookup. An entry
//! enters the map only when it was just read from the database, with that
//! read's expiry, so no layer serves an entry longer than `KEY_CACHE_TTL`.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use linecast_core::ports::key_directory::KeyDirectory;
use linecast_core::{Accounts, AccountsError, ApiKeyRecord, Customer};
use moka::future::Cache;

/// How long another instance may keep serving a revoked key.
pub const KEY_CACHE_TTL: Duration = Duration::from_secs(10);

type Entry = Option<Arc<(ApiKeyRecord, Customer)>>;

/// Most entries either layer holds.
const MAX_ENTRIES: usize = 100_000;

/// Entries answering hits, with the instant each expires.
type Front = RwLock<HashMap<String, (Entry, Instant), DigestHash>>;

/// Hashes a key hash (hex SHA-256) by its first 16 characters only, with
/// the standard keyed hasher: 64 bits no client can choose, and a random
/// key per process, so nobody can aim keys at one bucket.
#[derive(Clone, Default)]
struct DigestHash(std::collections::hash_map::RandomState);

impl std::hash::BuildHasher for DigestHash {
    type Hasher = FirstBytes;

    fn build_hasher(&self) -> FirstBytes {
        FirstBytes {
            inner: self.0.build_hasher(),
            seen: 0,
        }
    }
}

/// Feeds at most the first 16 bytes written to the keyed hasher.
struct FirstBytes {
    inner: std::collections::hash_map::DefaultHasher,
    seen: usize,
}

impl std::hash::Hasher for FirstBytes {
    fn finish(&self) -> u64 {
        self.inner.finish()
    }

    fn write(&mut self, bytes: &[u8]) {
        let take = 16usize.saturating_sub(self.seen).min(bytes.len());
        self.inner.write(&bytes[..take]);
        self.seen += bytes.len();
    }
}

/// Key lookups by hash, cached (unknown keys too, so a flood of bad keys
/// does not reach the database on every request).
#[derive(Clone)]
pub struct KeyCache {
    accounts: Arc<dyn Accounts>,
    front: Arc<Front>,
    cache: Cache<String, Entry>,
}

impl KeyCache {
    pub fn new(accounts: Arc<dyn Accounts>) -> Self {
        Self {
            accounts,
            front: Arc::new(RwLock::new(HashMap::with_hasher(DigestHash::default()))),
            cache: Cache::builder()
                .max_capacity(MAX_ENTRIES as u64)
                .time_to_live(KEY_CACHE_TTL)
                .build(),
        }
    }

    fn front_get(&self, key_hash: &str) -> Option<Entry> {
        let front = self.front.read().unwrap_or_else(PoisonError::into_inner);
        front
            .get(key_hash)
            .filter(|(_, expires)| Instant::now() < *expires)
            .map(|(entry, _)| entry.clone())
    }

    fn front_put(&self, key_hash: &str, entry: Entry, expires: Instant) {
        let mut front = self.front.write().unwrap_or_else(PoisonError::into_inner);
        if front.len() >= MAX_ENTRIES {
            let now = Instant::now();
            front.retain(|_, (_, until)| now < *until);
            if front.len() >= MAX_ENTRIES {
                front.clear();
            }
        }
        front.insert(key_hash.to_owned(), (entry, expires));
    }

    /// The key and its customer, whatever the key's state. Database errors
    /// are returned (and not cached) so the caller answers 503, never 401.
    pub async fn lookup(&self, key_hash: &str) -> Result<Entry, AccountsError> {
        if let Some(hit) = self.front_get(key_hash) {
            crate::metrics::key_cache("hit");
            return Ok(hit);
        }
        crate::metrics::key_cache("miss");
        let accounts = self.accounts.clone();
        let hash = key_hash.to_owned();
        // Set by the lookup that reads the database, with its expiry.
        let fresh = Arc::new(std::sync::OnceLock::new());
        let read = Arc::clone(&fresh);
        let entry = self
            .cache
            .try_get_with(key_hash.to_owned(), async move {
                let _ = read.set(Instant::now() + KEY_CACHE_TTL);
                Ok(accounts.find_key_by_hash(&hash).await?.map(Arc::new))
            })
            .await
            .map_err(|e: Arc<AccountsError>| (*e).clone())?;
        if let Some(expires) = fresh.get() {
            self.front_put(key_hash, entry.clone(), *expires);
        }
        Ok(entry)
    }

    /// Whether `full_key` is cached as an existing key (whatever its state),
    /// without a lookup: lets known keys through while their address is
    /// refused further failed key checks.
    pub async fn knows(&self, full_key: &str) -> bool {
        let hash = linecast_core::ports::accounts::hash_key(full_key);
        if let Some(entry) = self.front_get(&hash) {
            return entry.is_some();
        }
        matches!(self.cache.get(&hash).await, Some(Some(_)))
    }

    /// Drops one key's entry (after revoke or rename on this instance).
    pub async fn invalidate(&self, key_hash: &str) {
        self.front
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(key_hash);
        self.cache.invalidate(key_hash).await;
    }

    /// Drops every entry (after a change to a customer, e.g. subscription).
    pub fn invalidate_all(&self) {
        self.front.write().unwrap_or_else(PoisonError::into_inner).clear();
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
