//! Budgeted caches: one type for every cache that holds a share of
//! linecast's memory budget (core's `memory::Budget`), so each share is
//! weighed, evicted and reported the same way. The only crate besides the
//! adapters and the HTTP shell that names moka: core uses the type, never
//! the library.

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

    /// Entries held now (moka's count: it may not yet hold the latest
    /// inserts).
    pub fn entry_count(&self) -> u64 {
        self.cache.entry_count()
    }

    /// Entries held, exactly: the count once the cache's pending
    /// maintenance has run (inserts included).
    pub async fn held(&self) -> u64 {
        self.cache.run_pending_tasks().await;
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[tokio::test]
    async fn the_least_recently_used_entry_goes_first_and_is_counted() {
        let cache: Budgeted<u32, u64> = Budgeted::new(300, |_, weight| *weight);
        cache.insert(1, 100).await;
        cache.insert(2, 100).await;
        cache.insert(3, 100).await;
        // 1 is used again, so 2 is the least recently used.
        assert_eq!(cache.get(&1).await, Some(100));
        cache.insert(4, 100).await;
        assert_eq!(cache.get(&2).await, None, "the least recently used entry was evicted");
        assert_eq!(cache.get(&1).await, Some(100));
        assert_eq!(cache.get(&4).await, Some(100));
        let stats = cache.stats();
        assert_eq!((stats.bytes, stats.budget, stats.evictions), (300, 300, 1));
    }

    #[tokio::test]
    async fn an_entry_heavier_than_the_share_is_kept_alone() {
        let cache: Budgeted<u32, u64> = Budgeted::new(100, |_, weight| *weight);
        cache.insert(1, 40).await;
        cache.insert(2, 1_000).await;
        assert_eq!(cache.get(&2).await, Some(1_000));
        assert_eq!(cache.get(&1).await, None);
        assert_eq!(cache.stats().bytes, 100);
    }

    #[tokio::test]
    async fn concurrent_misses_of_one_key_make_it_once_and_errors_are_not_kept() {
        let cache: Budgeted<u32, u64> = Budgeted::new(1_000, |_, _| 1);
        let made = std::sync::atomic::AtomicU32::new(0);
        let make = || async {
            made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok::<u64, String>(7)
        };
        let (a, b) = tokio::join!(cache.try_get_with(1, make()), cache.try_get_with(1, make()));
        assert_eq!((a.unwrap(), b.unwrap()), (7, 7));
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), 1);
        let failed = cache
            .try_get_with(2, async { Err::<u64, String>("no".to_owned()) })
            .await;
        assert!(failed.is_err());
        assert_eq!(cache.get(&2).await, None, "an error is not kept");
        assert_eq!(cache.stats_weighing(|v| *v * 2).bytes, 14, "weighed as it is now");
    }
}
