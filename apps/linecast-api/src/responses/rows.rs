//! A season's served rows, each rendered once per season generation and
//! kept, so a results page of any size is assembled from stored row bytes
//! with no per-row work. Keyed by what the season depends on (its store's
//! key and version), weighed in bytes.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use linecast_core::Deps;
use serde_json::value::RawValue;

/// Rendered rows of one season generation, oldest first.
pub type SeasonRows = Arc<Vec<Box<RawValue>>>;

/// Rendered season rows by season generation, LRU, weighed in bytes.
pub struct RowCache {
    cache: moka::sync::Cache<String, SeasonRows>,
    budget: u64,
    evictions: Arc<AtomicU64>,
}

/// An eviction listener counting the entries a cache dropped to stay
/// within its share (not those replaced or invalidated).
pub(crate) fn count_evictions<K, V>(
    evictions: &Arc<AtomicU64>,
) -> impl Fn(Arc<K>, V, moka::notification::RemovalCause) + Send + Sync + 'static {
    let evictions = Arc::clone(evictions);
    move |_key, _value, cause| {
        if cause == moka::notification::RemovalCause::Size {
            evictions.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl RowCache {
    /// A cache holding at most `budget_bytes` of rendered rows (each row's
    /// bytes plus its box and pointer).
    pub fn new(budget_bytes: u64) -> Self {
        let evictions = Arc::new(AtomicU64::new(0));
        Self {
            cache: moka::sync::Cache::builder()
                .max_capacity(budget_bytes)
                .weigher(|key: &String, rows: &SeasonRows| {
                    let bytes: usize = rows.iter().map(|r| r.get().len() + 16).sum();
                    u32::try_from(bytes + key.len() + 64).unwrap_or(u32::MAX)
                })
                .eviction_listener(count_evictions(&evictions))
                .build(),
            budget: budget_bytes,
            evictions,
        }
    }

    /// The cache's state, for metrics.
    pub fn stats(&self) -> linecast_core::memory::CacheStats {
        linecast_core::memory::CacheStats {
            entries: self.cache.entry_count(),
            bytes: self.cache.weighted_size(),
            budget: self.budget,
            evictions: self.evictions.load(Ordering::Relaxed),
        }
    }

    /// The rows of the season generation `deps`, rendered by `render` on a
    /// miss (concurrent misses render once).
    pub fn get_or_render(&self, deps: &Deps, render: impl FnOnce() -> Vec<Box<RawValue>>) -> SeasonRows {
        self.cache.get_with_by_ref(deps.as_str(), || Arc::new(render()))
    }
}
