//! The hot path's shortcut: a request's normalized parameters plus its ET
//! date (never the raw path or query) to the body they resolved to, for
//! [`RESOLUTION_TTL`]. A hit skips every store and cache lookup between the
//! access gate and the bytes. Keys include the ET date, so a slate that
//! follows the calendar changes exactly at ET midnight.
//!
//! A plain map under a read lock: a hit hashes the key once (foldhash),
//! checks the entry's expiry and clones an `Arc`; it writes nothing and
//! allocates nothing (the key is written into a reused buffer). Expired
//! entries are swept when a miss stores its body, at most once per TTL.
//!
//! The key is the byte stream the parameters' `Hash` writes (recorded, not
//! hashed: [`Recorder`]), so two requests share an entry only when their
//! parameters wrote the very same bytes. std writes every `Hash` it
//! implements prefix-free (a string ends with `0xff`, which UTF-8 never
//! holds; a sequence starts with its length; an enum with its fixed-width
//! discriminant), and derived `Hash` writes every field in order, so the
//! stream of a tuple of such values is as exact as the values themselves,
//! at a fraction of the cost of formatting them.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use chrono::NaiveDate;

use super::Rendered;

/// How long a request's resolution (its parameters and ET date to the body
/// they lead to) is reused without asking the store again. The store itself
/// trusts an object's version for 2 s, so a republished artifact reaches
/// clients at most this much later than the version re-check sees it.
pub const RESOLUTION_TTL: Duration = Duration::from_secs(1);

/// Most resolutions held at once; past it, expired ones go, then all.
const MAX_ENTRIES: usize = 50_000;

/// See the module docs.
pub struct Resolutions {
    /// Zero: the memo is off.
    ttl: Duration,
    inner: RwLock<Inner>,
}

struct Inner {
    map: HashMap<Box<[u8]>, Held, foldhash::fast::RandomState>,
    /// When a store next sweeps out expired entries.
    next_sweep: Instant,
}

struct Held {
    body: Arc<Rendered>,
    /// The instant it was stored plus the TTL.
    expires: Instant,
}

impl Resolutions {
    /// A memo keeping each resolution for `ttl` ([`RESOLUTION_TTL`] in
    /// service); zero keeps none.
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            inner: RwLock::new(Inner {
                map: HashMap::default(),
                next_sweep: Instant::now(),
            }),
        }
    }

    /// The body `route` with `params` resolved to on the ET date `date`, if
    /// it was stored less than a TTL ago.
    pub(super) fn get(&self, route: &str, params: &(impl Hash + ?Sized), date: NaiveDate) -> Option<Arc<Rendered>> {
        thread_local! {
            static KEY: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        if self.ttl.is_zero() {
            return None;
        }
        KEY.with_borrow_mut(|key| {
            key.clear();
            write_key(key, route, params, date);
            self.get_at(key, Instant::now())
        })
    }

    fn get_at(&self, key: &[u8], now: Instant) -> Option<Arc<Rendered>> {
        let inner = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        let held = inner.map.get(key)?;
        (now < held.expires).then(|| held.body.clone())
    }

    /// Stores what `route` with `params` resolved to on `date`.
    pub(super) fn put(&self, route: &str, params: &(impl Hash + ?Sized), date: NaiveDate, body: Arc<Rendered>) {
        if self.ttl.is_zero() {
            return;
        }
        let mut key = Vec::with_capacity(route.len() + 48);
        write_key(&mut key, route, params, date);
        self.put_at(key.into_boxed_slice(), body, Instant::now());
    }

    fn put_at(&self, key: Box<[u8]>, body: Arc<Rendered>, now: Instant) {
        let mut inner = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        if now >= inner.next_sweep || inner.map.len() >= MAX_ENTRIES {
            inner.map.retain(|_, held| now < held.expires);
            inner.next_sweep = now + self.ttl;
            if inner.map.len() >= MAX_ENTRIES {
                inner.map.clear();
            }
        }
        let expires = now + self.ttl;
        inner.map.insert(key, Held { body, expires });
    }

    /// Forgets every resolution (the change-stream watcher saw a new
    /// object version: the next request resolves against it).
    pub fn clear(&self) {
        self.inner.write().unwrap_or_else(PoisonError::into_inner).map.clear();
    }

    /// Resolutions held, expired ones not yet swept included.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.inner.read().unwrap_or_else(PoisonError::into_inner).map.len()
    }
}

impl Default for Resolutions {
    fn default() -> Self {
        Self::new(RESOLUTION_TTL)
    }
}

/// The memo key of one request: the route, its parsed parameters, and the
/// ET date of the request instant (a bare request's slate moves at ET
/// midnight, so the date is part of what it resolves to).
/// The bytes `write` writes into a `Hasher`, recorded.
pub(super) fn record(write: impl FnOnce(&mut Recorder<'_>)) -> Box<[u8]> {
    let mut bytes = Vec::with_capacity(64);
    write(&mut Recorder(&mut bytes));
    bytes.into_boxed_slice()
}

fn write_key(key: &mut Vec<u8>, route: &str, params: &(impl Hash + ?Sized), et_date: NaiveDate) {
    use chrono::Datelike as _;
    let mut out = Recorder(key);
    route.hash(&mut out);
    params.hash(&mut out);
    // The date as its day number: the same information as the calendar form.
    out.write_i32(et_date.num_days_from_ce());
}

/// A `Hasher` that keeps the bytes it is given instead of mixing them: the
/// exact stream a value's `Hash` writes (see the module docs).
pub(super) struct Recorder<'a>(&'a mut Vec<u8>);

impl Hasher for Recorder<'_> {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    /// Never used as a hash: the recorded bytes are the key.
    fn finish(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests;
