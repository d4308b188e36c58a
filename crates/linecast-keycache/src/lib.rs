//! linecast-keycache: the key directory, core's `KeyDirectory` port, as a
//! cache in front of key lookups in the accounts database. Revocation and subscription changes
//! made through this instance invalidate the entry at once; other instances
//! see them within `KEY_CACHE_TTL`.
//!
//! Two layers: a plain map read under a read lock answers hits (an entry,
//! the instant it expires and whether it was used since it was read: no
//! other bookkeeping per hit), and a moka cache makes concurrent misses of
//! one key a single database lookup. An entry enters the map only when it
//! was just read from the database, with that read's expiry, so no layer
//! serves an entry longer than `KEY_CACHE_TTL`.
//!
//! Keys in use are read again before they expire ([`KeyCache::refresh_due`],
//! once a second from the server): one batch read for every used entry
//! within `REFRESH_AHEAD` of its expiry, so a request with a key in steady
//! use never waits on the database, and the database sees one read a
//! second instead of one per key and TTL. An invalidation made while a
//! batch is being read wins: the batch is dropped.
//!
//! Through a database outage ([`Outage`]): from the first failed read, a
//! key this instance read from the database within the outage grace before
//! the outage began keeps serving until the outage is that old, although
//! its entry has expired; every other lookup (an unknown key, a key read
//! longer ago, any key past the grace) fails at once as unavailable,
//! without waiting on the database. The refresh round asks the database
//! once a second whether it is back, and the first answer ends the outage.
//!
//! Each lookup is reported to the function given to
//! [`KeyCache::counting`] as a [`Lookup`] (the HTTP shell counts them as
//! metrics); this crate names no metrics library.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use linecast_core::ports::key_directory::KeyDirectory;
use linecast_core::{Accounts, AccountsError, ApiKeyRecord, Customer};
use moka::future::Cache;

/// How long another instance may keep serving a revoked key.
pub const KEY_CACHE_TTL: Duration = Duration::from_secs(10);

type Entry = Option<Arc<(ApiKeyRecord, Customer)>>;

/// How long before its expiry a used entry is read again.
pub const REFRESH_AHEAD: Duration = Duration::from_secs(4);

/// Most entries either layer holds.
const MAX_ENTRIES: usize = 100_000;

/// An entry answering hits.
struct Held {
    entry: Entry,
    /// The read's start plus `KEY_CACHE_TTL`.
    expires: Instant,
    /// Served since it was read: only such entries are refreshed ahead.
    used: AtomicBool,
}

/// Entries answering hits, by key hash. foldhash, seeded per process: a
/// client cannot aim keys at one bucket without the seed (and a key hash is
/// a SHA-256 it cannot choose either).
type Front = RwLock<HashMap<FrontKey, Held, foldhash::fast::RandomState>>;

/// A key hash as the front map holds it: its 64 hex digits in the map's own
/// slot, so a hit compares the digits where the probe already is instead
/// of following a `String` to another cache line (with 4,000 keys in use
/// the key lookup's share of a profile's samples fell from 9.4% to 8.1%:
/// `bench/RESULTS.md`, "The key cache's front"). Every stored key hash is
/// a SHA-256 in hex; a hash of any other length is never held in the front
/// map and is read through the single-flight layer on each lookup, which
/// is correct, only slower.
type FrontKey = [u8; 64];

/// `key_hash` as a front key, when it has a key hash's length.
fn front_key(key_hash: &str) -> Option<FrontKey> {
    key_hash.as_bytes().try_into().ok()
}

/// What answered a lookup, reported to the function given to
/// [`KeyCache::counting`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The front map held a live entry.
    Hit,
    /// The front map did not: the key is read through the single-flight layer.
    Miss,
    /// An expired entry served through a database outage, within the grace.
    OutageGrace,
}

impl Lookup {
    /// The metric label: `hit`, `miss` or `outage_grace`.
    pub const fn label(self) -> &'static str {
        match self {
            Self::Hit => "hit",
            Self::Miss => "miss",
            Self::OutageGrace => "outage_grace",
        }
    }
}

/// Key lookups by hash, cached (unknown keys too, so a flood of bad keys
/// does not reach the database on every request).
#[derive(Clone)]
pub struct KeyCache {
    accounts: Arc<dyn Accounts>,
    front: Arc<Front>,
    cache: Cache<String, Entry>,
    /// Bumped by every invalidation: a batch read that started before one
    /// is not stored.
    epoch: Arc<AtomicU64>,
    outage: Arc<Outage>,
    /// Told what answered each lookup.
    count: fn(Lookup),
}

/// Whether the accounts database is failing, as this instance's own reads
/// found, and how long an outage is ridden out on keys already known.
#[derive(Debug)]
pub struct Outage {
    /// When the first read of the current outage failed.
    since: std::sync::Mutex<Option<Instant>>,
    grace: Duration,
}

impl Outage {
    fn new(grace: Duration) -> Self {
        Self {
            since: std::sync::Mutex::new(None),
            grace,
        }
    }

    /// When the current outage began, if one is under way.
    pub fn since(&self) -> Option<Instant> {
        *self.since.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A read failed: the outage began now, unless it already had.
    fn began(&self) {
        let mut since = self.since.lock().unwrap_or_else(PoisonError::into_inner);
        if since.is_none() {
            tracing::warn!(
                grace_secs = self.grace.as_secs_f64(),
                "the accounts database failed: keys read within the grace before now keep serving for the grace; other keys get 503 until it answers"
            );
            *since = Some(Instant::now());
        }
    }

    /// A read succeeded: no outage.
    fn ended(&self) {
        let mut since = self.since.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(began) = since.take() {
            tracing::info!(
                lasted_secs = began.elapsed().as_secs_f64(),
                "the accounts database answers again"
            );
        }
    }

    /// Whether an entry read at `read_at` serves at `now`, past its expiry:
    /// only during an outage younger than the grace, and only when it was
    /// read within the grace before the outage began.
    fn covers(&self, read_at: Instant, now: Instant) -> bool {
        self.since()
            .is_some_and(|since| now < since + self.grace && read_at + self.grace >= since)
    }
}

impl KeyCache {
    /// A cache over `accounts` that rides out a database outage for
    /// `outage_grace` on the keys it knows (`LINECAST_DB_OUTAGE_GRACE_SECS`).
    pub fn new(accounts: Arc<dyn Accounts>, outage_grace: Duration) -> Self {
        Self {
            accounts,
            front: Arc::new(RwLock::new(
                HashMap::with_hasher(foldhash::fast::RandomState::default()),
            )),
            cache: Cache::builder()
                .max_capacity(MAX_ENTRIES as u64)
                .time_to_live(KEY_CACHE_TTL)
                .build(),
            epoch: Arc::default(),
            outage: Arc::new(Outage::new(outage_grace)),
            count: |_| {},
        }
    }

    /// This cache, telling `count` what answered each lookup (nothing is
    /// told until this is set).
    #[must_use]
    pub fn counting(self, count: fn(Lookup)) -> Self {
        Self { count, ..self }
    }

    /// The database outage this cache is riding out, if any.
    pub fn outage(&self) -> &Outage {
        &self.outage
    }

    fn front_get(&self, key_hash: &str) -> Option<Entry> {
        let front = self.front.read().unwrap_or_else(PoisonError::into_inner);
        // An array hashes and compares as its slice: no copy to look up.
        let held = front.get(key_hash.as_bytes())?;
        let now = Instant::now();
        if now >= held.expires {
            // Only a known key, and only through an outage.
            let read_at = held.expires.checked_sub(KEY_CACHE_TTL)?;
            return (held.entry.is_some() && self.outage.covers(read_at, now)).then(|| {
                (self.count)(Lookup::OutageGrace);
                held.entry.clone()
            });
        }
        // Read first: a key in steady use writes its flag once per read.
        if !held.used.load(Ordering::Relaxed) {
            held.used.store(true, Ordering::Relaxed);
        }
        Some(held.entry.clone())
    }

    /// Stores entries read at `read_started`, unless an invalidation came
    /// after `epoch` was taken (the read may predate it).
    fn front_put(&self, entries: impl IntoIterator<Item = (String, Entry)>, read_started: Instant, epoch: u64) {
        let mut front = self.front.write().unwrap_or_else(PoisonError::into_inner);
        // Invalidations bump the epoch before they take this lock.
        if self.epoch.load(Ordering::SeqCst) != epoch {
            return;
        }
        if front.len() >= MAX_ENTRIES {
            let now = Instant::now();
            front.retain(|_, h| now < h.expires);
            if front.len() >= MAX_ENTRIES {
                front.clear();
            }
        }
        let expires = read_started + KEY_CACHE_TTL;
        for (key_hash, entry) in entries {
            let Some(key) = front_key(&key_hash) else {
                continue;
            };
            let used = AtomicBool::new(false);
            front.insert(key, Held { entry, expires, used });
        }
    }

    /// Reads again, in one batch, every entry used since its last read that
    /// expires within `ahead`; returns how many were read. The server calls
    /// it once a second with [`REFRESH_AHEAD`]. During an outage it first
    /// asks the database whether it is back. A database error leaves the
    /// entries to expire (their next request reads the key itself, or,
    /// through the outage it marks, is served within the grace).
    pub async fn refresh_due(&self, ahead: Duration) -> Result<usize, AccountsError> {
        let result = self.refresh(ahead).await;
        match &result {
            Ok(_) => self.outage.ended(),
            Err(_) => self.outage.began(),
        }
        result
    }

    async fn refresh(&self, ahead: Duration) -> Result<usize, AccountsError> {
        if self.outage.since().is_some() {
            self.accounts.ping().await?;
        }
        let epoch = self.epoch.load(Ordering::SeqCst);
        let now = Instant::now();
        let due: Vec<String> = {
            let front = self.front.read().unwrap_or_else(PoisonError::into_inner);
            front
                .iter()
                .filter(|(_, h)| h.used.load(Ordering::Relaxed) && now < h.expires && h.expires <= now + ahead)
                .map(|(key, _)| String::from_utf8_lossy(key).into_owned())
                .collect()
        };
        if due.is_empty() {
            return Ok(0);
        }
        let read_started = Instant::now();
        let mut found: HashMap<String, Arc<(ApiKeyRecord, Customer)>> = self
            .accounts
            .find_keys_by_hashes(&due)
            .await?
            .into_iter()
            .map(|(key, customer)| (key.key_hash.clone(), Arc::new((key, customer))))
            .collect();
        let count = due.len();
        // A hash no longer found is stored as unknown: the key was deleted.
        let entries = due.into_iter().map(|hash| {
            let entry = found.remove(&hash);
            (hash, entry)
        });
        self.front_put(entries, read_started, epoch);
        Ok(count)
    }

    /// The key and its customer, whatever the key's state. Database errors
    /// are returned (and not cached) so the caller answers 503, never 401.
    /// During an outage, a key the outage does not cover fails at once.
    pub async fn lookup(&self, key_hash: &str) -> Result<Entry, AccountsError> {
        if let Some(hit) = self.held(key_hash) {
            return Ok(hit);
        }
        if let Some(since) = self.outage.since() {
            return Err(AccountsError::Unavailable(format!(
                "the accounts database has failed since {:.1} s ago; this key was not read within the outage grace before it",
                since.elapsed().as_secs_f64()
            )));
        }
        // Boxed: the read-through is a large future, and a hit (the usual
        // case) should neither allocate nor move it.
        match Box::pin(self.read_through(key_hash)).await {
            Err(failed) => {
                self.outage.began();
                // The entry this read was to replace may be covered now.
                self.held(key_hash).ok_or(failed)
            }
            read => read,
        }
    }

    /// A hit of the front map (counted as a hit), answered without waiting.
    pub fn held(&self, key_hash: &str) -> Option<Entry> {
        let hit = self.front_get(key_hash)?;
        (self.count)(Lookup::Hit);
        Some(hit)
    }

    /// A miss of the front map: one database read for concurrent misses of
    /// one key, stored in the front map when it was this call that read.
    async fn read_through(&self, key_hash: &str) -> Result<Entry, AccountsError> {
        (self.count)(Lookup::Miss);
        let epoch = self.epoch.load(Ordering::SeqCst);
        let accounts = self.accounts.clone();
        let hash = key_hash.to_owned();
        // Set by the lookup that reads the database: when its read started.
        let fresh = Arc::new(std::sync::OnceLock::new());
        let read = Arc::clone(&fresh);
        let entry = self
            .cache
            .try_get_with(key_hash.to_owned(), async move {
                let _ = read.set(Instant::now());
                Ok(accounts.find_key_by_hash(&hash).await?.map(Arc::new))
            })
            .await
            .map_err(|e: Arc<AccountsError>| (*e).clone())?;
        if let Some(read_started) = fresh.get() {
            self.front_put([(key_hash.to_owned(), entry.clone())], *read_started, epoch);
        }
        Ok(entry)
    }

    /// Whether `full_key` is cached as an existing key (whatever its state),
    /// without a lookup: lets known keys through while their address is
    /// refused further failed key checks.
    pub async fn knows(&self, full_key: &str) -> bool {
        let hash = linecast_core::key_material::KeyHash::of(full_key);
        if let Some(entry) = self.front_get(hash.as_str()) {
            return entry.is_some();
        }
        matches!(Box::pin(self.cache.get(hash.as_str())).await, Some(Some(_)))
    }

    /// Drops one key's entry (after revoke or rename on this instance).
    pub async fn invalidate(&self, key_hash: &str) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        self.front
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(key_hash.as_bytes());
        self.cache.invalidate(key_hash).await;
    }

    /// Drops every entry (after a change to a customer, e.g. subscription).
    pub fn invalidate_all(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        self.front.write().unwrap_or_else(PoisonError::into_inner).clear();
        self.cache.invalidate_all();
    }
}

#[async_trait]
impl KeyDirectory for KeyCache {
    async fn lookup(&self, key_hash: &str) -> Result<Entry, AccountsError> {
        KeyCache::lookup(self, key_hash).await
    }

    fn held(&self, key_hash: &str) -> Option<Entry> {
        KeyCache::held(self, key_hash)
    }

    async fn forget(&self, key_hash: &str) {
        self.invalidate(key_hash).await;
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use linecast_core::key_material::hash_key;
    use linecast_core::ports::accounts::{KeyIssue, KeyIssued, NewApiKey, SubscriptionStatus};
    use linecast_core::testing::MemoryAccounts;

    use super::*;

    const GRACE: Duration = Duration::from_mins(1);

    /// A cache over in-memory accounts holding one active key; returns its
    /// hash and id.
    async fn one_key() -> (Arc<MemoryAccounts>, KeyCache, String, i64) {
        let now = Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 0).unwrap();
        let accounts = Arc::new(MemoryAccounts::new());
        let customer = accounts
            .seed_customer("a@example.com", "ai", SubscriptionStatus::Active, 1000, now)
            .await
            .unwrap();
        let hash = hash_key(&format!("sk_service_{}", "k".repeat(40)));
        let id = issue(&accounts, customer.customer_id, &hash).await;
        let cache = KeyCache::new(accounts.clone(), GRACE);
        (accounts, cache, hash, id)
    }

    /// Stores a key of `hash` for `customer_id`; returns its id.
    async fn issue(accounts: &MemoryAccounts, customer_id: i64, hash: &str) -> i64 {
        let now = Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 0).unwrap();
        let issue = KeyIssue {
            key: NewApiKey {
                customer_id,
                key_hash: hash.to_owned(),
                display_prefix: "sk_service_kkkk".into(),
                name: "k".into(),
                tier: "ai".into(),
                expires_at: None,
            },
            max_active: None,
            audit_action: "issue".into(),
            audit_detail: "test".into(),
        };
        let KeyIssued::Stored(key) = accounts.issue_key(issue, now).await.unwrap() else {
            panic!("uncapped")
        };
        key.id
    }

    async fn revoked(cache: &KeyCache, hash: &str) -> bool {
        let entry = cache.lookup(hash).await.unwrap().unwrap();
        entry.0.revoked_at.is_some()
    }

    async fn revoke_elsewhere(accounts: &MemoryAccounts, id: i64) {
        let later = Utc.with_ymd_and_hms(2026, 11, 23, 12, 5, 0).unwrap();
        accounts.revoke_key(id, later).await.unwrap();
    }

    #[tokio::test]
    async fn a_key_in_use_is_read_again_by_the_refresh_not_by_its_next_request() {
        let (accounts, cache, hash, id) = one_key().await;
        assert!(!revoked(&cache, &hash).await, "the first lookup reads the key");
        assert!(!revoked(&cache, &hash).await, "the second is served from the cache");
        revoke_elsewhere(&accounts, id).await;
        assert!(
            !revoked(&cache, &hash).await,
            "another instance's revocation is not seen yet"
        );
        assert_eq!(cache.refresh_due(KEY_CACHE_TTL).await, Ok(1));
        assert!(revoked(&cache, &hash).await, "the refresh read the revocation");
    }

    #[tokio::test]
    async fn an_entry_not_used_since_its_read_is_left_to_expire() {
        let (accounts, cache, hash, id) = one_key().await;
        assert!(!revoked(&cache, &hash).await);
        revoke_elsewhere(&accounts, id).await;
        assert_eq!(cache.refresh_due(KEY_CACHE_TTL).await, Ok(0));
        assert!(!revoked(&cache, &hash).await, "still the entry read first");
    }

    #[tokio::test]
    async fn an_entry_far_from_its_expiry_is_not_read_again() {
        let (accounts, cache, hash, id) = one_key().await;
        assert!(!revoked(&cache, &hash).await);
        assert!(!revoked(&cache, &hash).await);
        revoke_elsewhere(&accounts, id).await;
        // Just read: it expires in about KEY_CACHE_TTL, not within a second.
        assert_eq!(cache.refresh_due(Duration::from_secs(1)).await, Ok(0));
        assert!(!revoked(&cache, &hash).await);
    }

    #[tokio::test]
    async fn a_failed_refresh_keeps_serving_entries_until_they_expire() {
        let (accounts, cache, hash, _) = one_key().await;
        assert!(!revoked(&cache, &hash).await);
        assert!(!revoked(&cache, &hash).await);
        accounts.set_down(true);
        assert!(cache.refresh_due(KEY_CACHE_TTL).await.is_err());
        assert!(!revoked(&cache, &hash).await, "served without a database read");
    }

    #[tokio::test]
    async fn a_read_that_started_before_an_invalidation_is_not_stored() {
        let (accounts, cache, hash, id) = one_key().await;
        let stale = cache.lookup(&hash).await.unwrap();
        let epoch = cache.epoch.load(Ordering::SeqCst);
        let read_started = Instant::now();
        revoke_elsewhere(&accounts, id).await;
        cache.invalidate(&hash).await;
        cache.front_put([(hash.clone(), stale)], read_started, epoch);
        assert!(revoked(&cache, &hash).await, "the invalidation won over the older read");
    }

    /// Stores `hash`'s current entry as if read `ago` (so it may have
    /// expired).
    async fn read_ago(cache: &KeyCache, hash: &str, ago: Duration) {
        let entry = cache.lookup(hash).await.unwrap();
        let epoch = cache.epoch.load(Ordering::SeqCst);
        let read_at = Instant::now().checked_sub(ago).unwrap();
        cache.front_put([(hash.to_owned(), entry)], read_at, epoch);
        // The single-flight layer's copy would have expired with it.
        cache.cache.invalidate(hash).await;
    }

    fn outage_began_ago(cache: &KeyCache, ago: Duration) {
        *cache.outage.since.lock().unwrap() = Some(Instant::now().checked_sub(ago).unwrap());
    }

    #[tokio::test]
    async fn through_an_outage_a_key_read_within_the_grace_before_it_serves_past_its_expiry_until_the_grace_ends() {
        let (accounts, cache, hash, _) = one_key().await;
        // Read 25 s ago: expired, but well within the 60 s grace.
        read_ago(&cache, &hash, KEY_CACHE_TTL + Duration::from_secs(15)).await;
        accounts.set_down(true);
        assert!(!revoked(&cache, &hash).await, "served from the expired entry");
        assert!(cache.outage().since().is_some(), "the failed read began the outage");
        // Still served 59 s into the outage; not at 61 s.
        outage_began_ago(&cache, Duration::from_secs(59));
        assert!(cache.lookup(&hash).await.unwrap().is_some());
        outage_began_ago(&cache, Duration::from_secs(61));
        assert!(matches!(cache.lookup(&hash).await, Err(AccountsError::Unavailable(_))));
    }

    #[tokio::test]
    async fn through_an_outage_unknown_keys_and_keys_read_long_before_it_fail_at_once_never_as_unknown() {
        let (accounts, cache, hash, _) = one_key().await;
        let never_issued = hash_key(&format!("sk_service_{}", "z".repeat(40)));
        assert_eq!(cache.lookup(&never_issued).await.unwrap(), None, "read as unknown");
        // Both read 75 s ago: 15 s more than the grace before the outage.
        read_ago(&cache, &hash, Duration::from_secs(75)).await;
        read_ago(&cache, &never_issued, Duration::from_secs(75)).await;
        accounts.set_down(true);
        assert!(matches!(cache.lookup(&hash).await, Err(AccountsError::Unavailable(_))));
        // A key cached as unknown is not answered "unknown" (a 401) through
        // the outage: it may have been issued since.
        assert!(matches!(
            cache.lookup(&never_issued).await,
            Err(AccountsError::Unavailable(_))
        ));
        // Once the outage is known, a lookup does not wait on the database:
        // it fails even though the database would now answer.
        accounts.set_down(false);
        let fresh = hash_key(&format!("sk_service_{}", "y".repeat(40)));
        assert!(matches!(cache.lookup(&fresh).await, Err(AccountsError::Unavailable(_))));
    }

    #[tokio::test]
    async fn the_refresh_round_ends_the_outage_on_the_databases_first_answer() {
        let (accounts, cache, hash, _) = one_key().await;
        accounts.set_down(true);
        assert_eq!(
            cache.refresh_due(REFRESH_AHEAD).await,
            Ok(0),
            "nothing due, no outage known"
        );
        assert!(matches!(cache.lookup(&hash).await, Err(AccountsError::Unavailable(_))));
        assert!(cache.outage().since().is_some(), "the failed read began the outage");
        assert!(cache.refresh_due(REFRESH_AHEAD).await.is_err(), "it asks the database");
        assert!(cache.outage().since().is_some());
        accounts.set_down(false);
        assert_eq!(cache.refresh_due(REFRESH_AHEAD).await, Ok(0));
        assert!(cache.outage().since().is_none());
        assert!(!revoked(&cache, &hash).await, "read from the database again");
    }

    #[tokio::test]
    async fn without_an_outage_an_expired_entry_is_read_again() {
        let (accounts, cache, hash, id) = one_key().await;
        read_ago(&cache, &hash, KEY_CACHE_TTL + Duration::from_secs(1)).await;
        revoke_elsewhere(&accounts, id).await;
        assert!(revoked(&cache, &hash).await);
    }

    static HITS: AtomicU64 = AtomicU64::new(0);
    static MISSES: AtomicU64 = AtomicU64::new(0);

    /// The counts of the one test that counts.
    fn count(lookup: Lookup) {
        match lookup {
            Lookup::Hit => HITS.fetch_add(1, Ordering::SeqCst),
            Lookup::Miss => MISSES.fetch_add(1, Ordering::SeqCst),
            Lookup::OutageGrace => 0,
        };
    }

    #[tokio::test]
    async fn a_hash_is_held_by_all_its_digits_and_a_hash_of_another_length_is_read_through_each_time() {
        let (accounts, cache, hash, _) = one_key().await;
        let cache = cache.counting(count);
        let counts = || (HITS.load(Ordering::SeqCst), MISSES.load(Ordering::SeqCst));
        assert!(cache.lookup(&hash).await.unwrap().is_some());
        assert!(cache.lookup(&hash).await.unwrap().is_some());
        assert_eq!(counts(), (1, 1), "read once, then held");
        // The same digits but the first or the last: other keys, not held.
        for at in [0, hash.len() - 1] {
            let mut other = hash.clone().into_bytes();
            other[at] = if other[at] == b'0' { b'1' } else { b'0' };
            let other = String::from_utf8(other).unwrap();
            assert!(cache.held(&other).is_none(), "digit {at} changed");
            assert_eq!(cache.lookup(&other).await.unwrap(), None);
        }
        assert_eq!(counts(), (1, 3));
        // A stored hash that is no SHA-256 in hex (shorter, longer) still
        // finds its key, through the single-flight layer every time.
        let customer_id = cache.lookup(&hash).await.unwrap().unwrap().1.customer_id;
        for odd in [hash[..63].to_owned(), format!("{hash}0")] {
            issue(&accounts, customer_id, &odd).await;
            for _ in 0..2 {
                let found = cache.lookup(&odd).await.unwrap().expect("the key is found");
                assert_eq!(found.0.key_hash, odd);
                assert!(cache.held(&odd).is_none());
            }
        }
        assert_eq!(counts(), (2, 7));
    }
}
