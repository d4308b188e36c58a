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

use std::collections::HashMap;
use std::fmt::{Debug, Write as _};
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
    map: HashMap<String, Held, foldhash::fast::RandomState>,
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
    pub(super) fn get(&self, route: &str, params: &(impl Debug + ?Sized), date: NaiveDate) -> Option<Arc<Rendered>> {
        thread_local! {
            static KEY: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
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

    fn get_at(&self, key: &str, now: Instant) -> Option<Arc<Rendered>> {
        let inner = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        let held = inner.map.get(key)?;
        (now < held.expires).then(|| held.body.clone())
    }

    /// Stores what `route` with `params` resolved to on `date`.
    pub(super) fn put(&self, route: &str, params: &(impl Debug + ?Sized), date: NaiveDate, body: Arc<Rendered>) {
        if self.ttl.is_zero() {
            return;
        }
        let mut key = String::with_capacity(route.len() + 48);
        write_key(&mut key, route, params, date);
        self.put_at(key, body, Instant::now());
    }

    fn put_at(&self, key: String, body: Arc<Rendered>, now: Instant) {
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
fn write_key(key: &mut String, route: &str, params: &(impl Debug + ?Sized), et_date: NaiveDate) {
    use chrono::Datelike as _;
    // The date as its day number: the same information as the calendar
    // form, written without the date formatter.
    let _ = write!(key, "{route}\u{1e}{params:?}\u{1e}{}", et_date.num_days_from_ce());
}

#[cfg(test)]
mod tests;
