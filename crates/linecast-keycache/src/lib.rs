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
//! The outage may be this instance's alone (a partition of its network or
//! its connection pool) while the database takes revocations from other
//! instances or `linecast-admin`. With a relay ([`KeyCache::relaying`],
//! Redis where it is configured), [`KeyCache::relay_round`] runs every
//! [`RELAY_ROUND`] beside the refresh. It asks the relay for the keys in
//! use here whose entry is within [`ASK_AHEAD`] of its expiry (the refresh
//! renews them earlier unless the database fails to answer it), and stores
//! each answer as a database read of its age. While this instance reaches
//! the database, it also listens: it reads the keys other instances asked
//! for in one batch and answers them. So a revoked key or a lapsed
//! subscription is refused here within `KEY_CACHE_TTL` of its commit
//! whenever this instance reaches the database or the relay. While an
//! instance that reaches the database listens (within [`RELAY_LIVE`]), an
//! expired entry is not served through the outage grace: its lookup fails
//! as unavailable until an answer confirms it. Where neither the database
//! nor a listening instance is reached, the grace above is the bound, and
//! each lookup it serves is counted as [`Lookup::OutageGrace`].
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
use linecast_core::ports::key_relay::{KeyRelay, RelayedKey};
use linecast_core::{Accounts, AccountsError, ApiKeyRecord, Customer};
use moka::future::Cache;

/// How long another instance may keep serving a revoked key.
pub const KEY_CACHE_TTL: Duration = Duration::from_secs(10);

type Entry = Option<Arc<(ApiKeyRecord, Customer)>>;

/// How long before its expiry a used entry is read again.
pub const REFRESH_AHEAD: Duration = Duration::from_secs(4);

/// Most entries either layer holds.
const MAX_ENTRIES: usize = 100_000;

/// Most key hashes one relay round asks for, or answers.
pub const MAX_RELAYED: usize = 10_000;

/// How often the server runs [`KeyCache::relay_round`].
pub const RELAY_ROUND: Duration = Duration::from_millis(500);

/// A used entry this close to its expiry is asked for through the relay:
/// the refresh reads entries from [`REFRESH_AHEAD`] before it, so one still
/// this close has missed a refresh round.
pub const ASK_AHEAD: Duration = Duration::from_secs(3);

/// How recently an instance that reached the database must have listened
/// for this one to wait for its answers rather than serve the grace.
pub const RELAY_LIVE: Duration = Duration::from_secs(2);

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
    /// Key records passed between instances, when configured.
    relay: Option<Arc<dyn KeyRelay>>,
    /// When an instance that reached the database last listened on the
    /// relay, as the last ask learned.
    listened: Arc<std::sync::Mutex<Option<Instant>>>,
    /// Told what answered each lookup.
    count: fn(Lookup),
}

/// What one [`KeyCache::relay_round`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelayRound {
    /// No relay, or nothing was asked or answered.
    Idle,
    /// Asked for `asked` keys in use (none while merely checking whether an
    /// instance listens), stored the `stored` answers newer than what was
    /// held, and read and answered the `answered` keys other instances
    /// asked for.
    Ran {
        asked: usize,
        stored: usize,
        answered: usize,
    },
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
            relay: None,
            listened: Arc::default(),
            count: |_| {},
        }
    }

    /// This cache, asking `relay` for the keys it serves through an outage
    /// of its own and answering other instances' asks
    /// ([`KeyCache::relay_round`]).
    #[must_use]
    pub fn relaying(self, relay: Arc<dyn KeyRelay>) -> Self {
        Self {
            relay: Some(relay),
            ..self
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
            if held.entry.is_none() || !self.outage.covers(read_at, now) {
                return None;
            }
            // In use: the relay round asks for it.
            held.used.store(true, Ordering::Relaxed);
            // An instance that reaches the database listens: its answer
            // serves, not the grace.
            if self.relay_live(now) {
                return None;
            }
            (self.count)(Lookup::OutageGrace);
            return Some(held.entry.clone());
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

    /// Stores what the relay answered, each as a database read started its
    /// `age` ago, unless the entry held is from a later read or an
    /// invalidation came after `epoch` was taken. Returns how many were
    /// stored.
    fn relayed_put(&self, answers: Vec<RelayedKey>, epoch: u64) -> usize {
        let now = Instant::now();
        let mut front = self.front.write().unwrap_or_else(PoisonError::into_inner);
        if self.epoch.load(Ordering::SeqCst) != epoch {
            return 0;
        }
        let mut stored = 0;
        for answer in answers {
            let (Some(key), Some(read_started)) = (front_key(&answer.key_hash), now.checked_sub(answer.age)) else {
                continue;
            };
            let expires = read_started + KEY_CACHE_TTL;
            match front.get(&key) {
                Some(held) if held.expires >= expires => continue,
                None if front.len() >= MAX_ENTRIES => continue,
                _ => {}
            }
            let used = AtomicBool::new(false);
            front.insert(
                key,
                Held {
                    entry: answer.entry,
                    expires,
                    used,
                },
            );
            stored += 1;
        }
        stored
    }

    /// Whether an instance that reached the database listened on the relay
    /// within [`RELAY_LIVE`] before `now`, as the last ask learned.
    fn relay_live(&self, now: Instant) -> bool {
        self.listened
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|at| now.saturating_duration_since(at) < RELAY_LIVE)
    }

    /// The used entries within [`ASK_AHEAD`] of their expiry (or past it),
    /// at most [`MAX_RELAYED`].
    fn due_for_asking(&self) -> Vec<String> {
        let deadline = Instant::now() + ASK_AHEAD;
        let front = self.front.read().unwrap_or_else(PoisonError::into_inner);
        front
            .iter()
            .filter(|(_, h)| h.entry.is_some() && h.used.load(Ordering::Relaxed) && h.expires < deadline)
            .take(MAX_RELAYED)
            .map(|(key, _)| String::from_utf8_lossy(key).into_owned())
            .collect()
    }

    /// One round of the relay, every [`RELAY_ROUND`] beside
    /// [`KeyCache::refresh_due`] and never waiting on it. Asks for the used
    /// entries within [`ASK_AHEAD`] of their expiry and stores the answers
    /// younger than `KEY_CACHE_TTL` (the answer for a revoked key makes
    /// this instance refuse it as a database read would); through an outage
    /// it asks even with nothing due, to learn whether an instance listens.
    /// Then, unless the outage is under way, asks the database whether it
    /// answers (a failure begins the outage), listens, and answers the keys
    /// other instances asked for with one batch read. Without a relay,
    /// nothing.
    pub async fn relay_round(&self) -> Result<RelayRound, AccountsError> {
        let Some(relay) = &self.relay else {
            return Ok(RelayRound::Idle);
        };
        let (mut asked, mut stored, mut answered) = (0, 0, 0);
        let due = self.due_for_asking();
        if !due.is_empty() || self.outage.since().is_some() {
            let epoch = self.epoch.load(Ordering::SeqCst);
            let answers = relay.ask(&due, KEY_CACHE_TTL).await?;
            let now = Instant::now();
            *self.listened.lock().unwrap_or_else(PoisonError::into_inner) =
                answers.listened.and_then(|ago| now.checked_sub(ago));
            asked = due.len();
            stored = self.relayed_put(answers.keys, epoch);
        }
        if self.outage.since().is_none() {
            if let Err(e) = self.accounts.ping().await {
                self.outage.began();
                return Err(e);
            }
            let wanted = relay.listen(MAX_RELAYED).await?;
            if !wanted.is_empty() {
                let read_started = Instant::now();
                let answers = match self.read_batch(wanted).await {
                    Ok(answers) => answers,
                    Err(e) => {
                        self.outage.began();
                        return Err(e);
                    }
                };
                relay.answer(&answers, read_started.elapsed(), KEY_CACHE_TTL).await?;
                answered = answers.len();
            }
        }
        Ok(if asked + stored + answered == 0 {
            RelayRound::Idle
        } else {
            RelayRound::Ran {
                asked,
                stored,
                answered,
            }
        })
    }

    /// Reads `hashes` from the database in one batch: each with its key and
    /// customer, or `None` when no key has it (deleted: stored as unknown).
    async fn read_batch(&self, hashes: Vec<String>) -> Result<Vec<(String, Entry)>, AccountsError> {
        let mut found: HashMap<String, Arc<(ApiKeyRecord, Customer)>> = self
            .accounts
            .find_keys_by_hashes(&hashes)
            .await?
            .into_iter()
            .map(|(key, customer)| (key.key_hash.clone(), Arc::new((key, customer))))
            .collect();
        Ok(hashes
            .into_iter()
            .map(|hash| {
                let entry = found.remove(&hash);
                (hash, entry)
            })
            .collect())
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
        let count = due.len();
        let entries = self.read_batch(due).await?;
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
                "the accounts database has failed since {:.1} s ago; this key was not read within the outage grace before it, or waits for another instance to confirm it",
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

    /// The relay port in memory: asks and answers in two maps, ages from
    /// this process's clock (the Redis adapter is tested on Redis itself,
    /// in linecast-limits).
    #[derive(Default)]
    struct MemoryRelay {
        asked: std::sync::Mutex<Vec<String>>,
        answers: std::sync::Mutex<HashMap<String, (Entry, Instant)>>,
        listened: std::sync::Mutex<Option<Instant>>,
    }

    #[async_trait]
    impl KeyRelay for MemoryRelay {
        async fn ask(
            &self,
            hashes: &[String],
            fresher_than: Duration,
        ) -> Result<linecast_core::ports::key_relay::RelayAnswers, AccountsError> {
            let mut asked = self.asked.lock().unwrap();
            for hash in hashes {
                if !asked.contains(hash) {
                    asked.push(hash.clone());
                }
            }
            let answers = self.answers.lock().unwrap();
            let keys = hashes
                .iter()
                .filter_map(|hash| {
                    let (entry, read) = answers.get(hash)?;
                    (read.elapsed() < fresher_than).then(|| RelayedKey {
                        key_hash: hash.clone(),
                        entry: entry.clone(),
                        age: read.elapsed(),
                    })
                })
                .collect();
            let listened = self.listened.lock().unwrap().map(|at| at.elapsed());
            Ok(linecast_core::ports::key_relay::RelayAnswers { keys, listened })
        }

        async fn listen(&self, limit: usize) -> Result<Vec<String>, AccountsError> {
            *self.listened.lock().unwrap() = Some(Instant::now());
            Ok(self.asked.lock().unwrap().iter().take(limit).cloned().collect())
        }

        async fn answer(
            &self,
            found: &[(String, Option<linecast_core::ports::key_directory::KeyEntry>)],
            age: Duration,
            _keep: Duration,
        ) -> Result<(), AccountsError> {
            let read = Instant::now().checked_sub(age).unwrap();
            let mut answers = self.answers.lock().unwrap();
            for (hash, entry) in found {
                answers.insert(hash.clone(), (entry.clone(), read));
            }
            Ok(())
        }
    }

    /// Two instances over one database and one relay: `cut` (whose own
    /// outage has begun, the database still up for the other) and `up`.
    /// The key is in use on the cut instance, read 8 s ago: within
    /// `ASK_AHEAD` of its expiry, a refresh missed.
    async fn cut_and_up() -> (Arc<MemoryAccounts>, KeyCache, KeyCache, String, i64, Arc<MemoryRelay>) {
        let (accounts, cut, hash, id) = one_key().await;
        let relay = Arc::new(MemoryRelay::default());
        let cut = cut.relaying(relay.clone());
        let up = KeyCache::new(accounts.clone(), GRACE).relaying(relay.clone());
        read_ago(&cut, &hash, Duration::from_secs(8)).await;
        assert!(!revoked(&cut, &hash).await, "in use");
        outage_began_ago(&cut, Duration::from_secs(1));
        (accounts, cut, up, hash, id, relay)
    }

    const fn ran(asked: usize, stored: usize, answered: usize) -> RelayRound {
        RelayRound::Ran {
            asked,
            stored,
            answered,
        }
    }

    #[tokio::test]
    async fn through_an_outage_of_its_own_a_revocation_reaches_the_cut_instance_through_the_relay() {
        let (accounts, cut, up, hash, id, _) = cut_and_up().await;
        revoke_elsewhere(&accounts, id).await;
        assert!(
            !revoked(&cut, &hash).await,
            "still the entry read before the revocation"
        );
        assert_eq!(cut.relay_round().await, Ok(ran(1, 0, 0)), "asked, no answer yet");
        assert_eq!(up.relay_round().await, Ok(ran(0, 0, 1)), "the other instance answers");
        assert_eq!(cut.relay_round().await, Ok(ran(1, 1, 0)));
        assert!(revoked(&cut, &hash).await, "the relayed read says revoked");
    }

    #[tokio::test]
    async fn a_relayed_read_keeps_a_key_in_use_served_and_a_deleted_key_is_unknown() {
        let (_, cut, up, hash, _, relay) = cut_and_up().await;
        cut.relay_round().await.unwrap();
        up.relay_round().await.unwrap();
        assert_eq!(cut.relay_round().await, Ok(ran(1, 1, 0)));
        // Stored as a read just made: it expires a whole TTL from now, so
        // it is not asked again for a while.
        assert!(!revoked(&cut, &hash).await);
        assert_eq!(cut.relay_round().await, Ok(RelayRound::Idle));
        // An answer of no key (a hash no longer in the database) is stored
        // as unknown, as the refresh stores it.
        read_ago(&cut, &hash, Duration::from_secs(8)).await;
        assert!(!revoked(&cut, &hash).await, "used again");
        relay
            .answer(&[(hash.clone(), None)], Duration::ZERO, KEY_CACHE_TTL)
            .await
            .unwrap();
        assert_eq!(cut.relay_round().await, Ok(ran(1, 1, 0)));
        assert_eq!(cut.lookup(&hash).await, Ok(None));
    }

    #[tokio::test]
    async fn while_an_instance_listens_an_expired_entry_waits_for_its_answer_and_without_one_the_grace_serves() {
        let (_, cut, up, hash, _, _) = cut_and_up().await;
        // Expired, read within the grace before the outage.
        read_ago(&cut, &hash, KEY_CACHE_TTL + Duration::from_secs(5)).await;
        outage_began_ago(&cut, Duration::from_secs(1));
        // Nobody has listened: the grace serves, and the key is asked for.
        assert!(!revoked(&cut, &hash).await, "served through the grace");
        assert_eq!(cut.relay_round().await, Ok(ran(1, 0, 0)));
        // Another instance listens: the expired entry is not served on the
        // grace but waits for the answer.
        assert_eq!(up.relay_round().await, Ok(ran(0, 0, 1)));
        // The answer came with the listen: the ask stores it at once.
        read_ago(&cut, &hash, KEY_CACHE_TTL + Duration::from_secs(5)).await;
        outage_began_ago(&cut, Duration::from_secs(1));
        *cut.listened.lock().unwrap() = Some(Instant::now());
        assert!(
            matches!(cut.lookup(&hash).await, Err(AccountsError::Unavailable(_))),
            "not served unconfirmed"
        );
        assert_eq!(cut.relay_round().await, Ok(ran(1, 1, 0)));
        assert!(!revoked(&cut, &hash).await, "served on the relayed read");
    }

    #[tokio::test]
    async fn an_answer_older_than_the_entry_held_is_not_stored_and_an_instance_in_outage_answers_nothing() {
        let (accounts, cut, up, hash, id, relay) = cut_and_up().await;
        // An answer read 9 s ago is older than the cut instance's own read.
        let stale = cut.lookup(&hash).await.unwrap();
        relay
            .answer(&[(hash.clone(), stale)], Duration::from_secs(9), KEY_CACHE_TTL)
            .await
            .unwrap();
        revoke_elsewhere(&accounts, id).await;
        assert_eq!(cut.relay_round().await, Ok(ran(1, 0, 0)));
        // An instance that cannot reach the database does not answer.
        outage_began_ago(&up, Duration::from_secs(1));
        assert_eq!(up.relay_round().await, Ok(RelayRound::Idle));
        assert!(!revoked(&cut, &hash).await, "nothing newer was relayed");
        // One whose ping fails begins its outage and answers nothing.
        let (other_accounts, other, _, _) = one_key().await;
        let other = other.relaying(relay.clone());
        other_accounts.set_down(true);
        assert!(other.relay_round().await.is_err());
        assert!(other.outage().since().is_some());
    }

    #[tokio::test]
    async fn without_a_relay_a_round_does_nothing() {
        let (_, cache, hash, _) = one_key().await;
        read_ago(&cache, &hash, Duration::from_secs(8)).await;
        assert!(!revoked(&cache, &hash).await);
        outage_began_ago(&cache, Duration::from_secs(1));
        assert_eq!(cache.relay_round().await, Ok(RelayRound::Idle));
    }
}
