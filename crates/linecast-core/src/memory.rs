//! The one memory budget (`LINECAST_CACHE_BYTES`): every cache of parsed,
//! graded or rendered data takes a fixed share of it, weighs its entries by
//! measured heap size (`linecast-heap`) or byte length, and evicts the least
//! recently used past its share. The shares sum to the budget.
//!
//! | cache | share | holds |
//! |---|---|---|
//! | artifacts | 1/8 | parsed small artifacts (predictions, odds, teams, scores, releases) |
//! | seasons | 1/2 | graded seasons: parsed rows, grades, aggregates |
//! | bodies | 1/4 | rendered response bodies, each encoding |
//! | rows | 1/8 | rendered result rows of a season generation |
//!
//! Every one of them is a [`Budgeted`] cache: one type, so each share is
//! weighed, evicted and reported the same way.
//!
//! Season stores are parsed for the seasons cache only (the artifacts cache
//! does not keep them), so no parsed row is held twice.

/// The budget and its shares, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    total: u64,
}

impl Budget {
    /// The default: 160 MiB. A full-profile sweep (every sport, model type
    /// and season through every history endpoint) peaks at about the budget
    /// plus 200 MB resident: the running server, the allocator's overhead
    /// and one season parsed for a cross-season aggregate. 160 MiB keeps
    /// that peak under 400 MB (docs/decisions.md, Memory).
    pub const DEFAULT_BYTES: u64 = 160 * 1024 * 1024;

    pub fn new(total: u64) -> Self {
        Self { total }
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn artifacts(&self) -> u64 {
        self.total / 8
    }

    pub fn seasons(&self) -> u64 {
        self.total / 2
    }

    pub fn bodies(&self) -> u64 {
        self.total / 4
    }

    /// What is left of the total: an eighth.
    pub fn rows(&self) -> u64 {
        self.total - self.artifacts() - self.seasons() - self.bodies()
    }
}

impl Default for Budget {
    fn default() -> Self {
        Self::new(Self::DEFAULT_BYTES)
    }
}

/// A cache holding at most its share of the budget: entries weighed in
/// bytes (one heavier than the share is kept alone), the least recently
/// used evicted first (amortised O(1), in
/// moka's maintenance), concurrent misses of one key computed once, and
/// the evictions that kept it within its share counted for metrics.
pub struct Budgeted<K, V> {
    cache: moka::future::Cache<K, V>,
    budget: u64,
    evictions: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl<K, V> Budgeted<K, V>
where
    K: std::hash::Hash + Eq + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    /// A cache of at most `budget` bytes, each entry weighing `weigh`.
    pub fn new(budget: u64, weigh: impl Fn(&K, &V) -> u64 + Send + Sync + 'static) -> Self {
        let evictions = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counted = std::sync::Arc::clone(&evictions);
        Self {
            cache: moka::future::Cache::builder()
                .max_capacity(budget)
                .eviction_policy(moka::policy::EvictionPolicy::lru())
                // An entry heavier than the whole share weighs the share:
                // it is kept alone rather than made again on every use.
                .weigher(move |k: &K, v: &V| u32::try_from(weigh(k, v).min(budget)).unwrap_or(u32::MAX))
                .eviction_listener(move |_k, _v, cause| {
                    if cause == moka::notification::RemovalCause::Size {
                        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                })
                .build(),
            budget,
            evictions,
        }
    }

    /// The entry of `key`, marked as used.
    pub async fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        self.cache.get(key).await
    }

    /// Keeps `value` under `key`, then evicts what the share no longer
    /// holds (at once, so the weight reported is the weight held).
    pub async fn insert(&self, key: K, value: V) {
        self.cache.insert(key, value).await;
        self.cache.run_pending_tasks().await;
    }

    /// The entry of `key`, made by `make` on a miss (concurrent misses of
    /// one key make it once). Errors are not kept.
    pub async fn try_get_with<E>(
        &self,
        key: K,
        make: impl std::future::Future<Output = Result<V, E>>,
    ) -> Result<V, std::sync::Arc<E>>
    where
        E: Send + Sync + 'static,
    {
        self.cache.try_get_with(key, make).await
    }

    /// The entry of `key`, made by `make` on a miss (concurrent misses of
    /// one key make it once).
    pub async fn get_with(&self, key: K, make: impl std::future::Future<Output = V>) -> V {
        self.cache.get_with(key, make).await
    }

    /// Drops the entry of `key`.
    pub async fn invalidate<Q>(&self, key: &Q)
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        self.cache.invalidate(key).await;
    }

    /// Entries held now.
    pub fn entry_count(&self) -> u64 {
        self.cache.entry_count()
    }

    /// [`Self::stats`] with each entry weighed now by `weigh`, for values
    /// that grow after they were kept (a graded season computes its
    /// aggregates on demand; it is weighed again for eviction on its next
    /// use).
    pub fn stats_weighing(&self, weigh: impl Fn(&V) -> u64) -> CacheStats {
        CacheStats {
            entries: self.cache.entry_count(),
            bytes: self.cache.iter().map(|(_, v)| weigh(&v)).sum(),
            ..self.stats()
        }
    }

    /// The cache's state, for metrics.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            entries: self.cache.entry_count(),
            bytes: self.cache.weighted_size(),
            budget: self.budget,
            evictions: self.evictions.load(std::sync::atomic::Ordering::Relaxed),
        }
    }
}

/// One cache's state, for metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    pub entries: u64,
    /// Weight held, in bytes.
    pub bytes: u64,
    /// The cache's share of the budget.
    pub budget: u64,
    /// Entries dropped to stay within the share, so far.
    pub evictions: u64,
}

/// Whether the caches let go of memory between two readings of their
/// stats (the same caches, in the same order): an entry evicted, or fewer
/// bytes held by any of them. Only then is there freed memory worth handing
/// back to the system; trimming without it walks (and locks) the
/// allocator's arenas for nothing, stalling requests on the hot path.
/// With no earlier reading, yes (what start-up freed).
pub fn released(before: Option<&[CacheStats]>, now: &[CacheStats]) -> bool {
    let Some(before) = before else {
        return true;
    };
    before.len() != now.len()
        || before
            .iter()
            .zip(now)
            .any(|(b, n)| n.evictions > b.evictions || n.bytes < b.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_counts_as_released_only_after_an_eviction_or_a_smaller_cache() {
        let held = |bytes, evictions| CacheStats {
            entries: 1,
            bytes,
            budget: 1_000,
            evictions,
        };
        let before = [held(100, 0), held(50, 2)];
        assert!(released(None, &before));
        // Steady, or only growing: nothing to give back.
        assert!(!released(Some(&before), &before));
        assert!(!released(Some(&before), &[held(300, 0), held(50, 2)]));
        // One cache shrank, or evicted while it grew.
        assert!(released(Some(&before), &[held(99, 0), held(50, 2)]));
        assert!(released(Some(&before), &[held(100, 0), held(60, 3)]));
    }

    #[test]
    fn the_shares_sum_to_the_budget_whatever_it_is() {
        for total in [0, 1, 7, 1_000, 256 * 1024 * 1024, 123_456_789] {
            let b = Budget::new(total);
            assert_eq!(b.artifacts() + b.seasons() + b.bodies() + b.rows(), total);
        }
        let b = Budget::new(256 * 1024 * 1024);
        assert_eq!(
            (b.artifacts(), b.seasons(), b.bodies(), b.rows()),
            (32 << 20, 128 << 20, 64 << 20, 32 << 20)
        );
    }
}
