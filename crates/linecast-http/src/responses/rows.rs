//! A season's served rows, each rendered once per season generation and
//! kept, so a results page of any size is assembled from stored row bytes
//! with no per-row work. Keyed by what the season depends on (its store's
//! key and version), weighed in bytes.

use std::sync::Arc;

use linecast_core::Deps;
use serde_json::value::RawValue;

/// Rendered rows of one season generation, oldest first.
pub type SeasonRows = Arc<Vec<Box<RawValue>>>;

/// Rendered season rows by season generation, within the rows share of
/// the budget.
pub struct RowCache {
    cache: linecast_core::memory::Budgeted<String, SeasonRows>,
}

impl RowCache {
    /// A cache holding at most `budget_bytes` of rendered rows (each row's
    /// bytes plus its box and pointer).
    pub fn new(budget_bytes: u64) -> Self {
        Self {
            cache: linecast_core::memory::Budgeted::new(budget_bytes, |key: &String, rows: &SeasonRows| {
                let bytes: usize = rows.iter().map(|r| r.get().len() + 16).sum();
                (bytes + key.len() + 64) as u64
            }),
        }
    }

    /// The cache's state, for metrics.
    pub fn stats(&self) -> linecast_core::memory::CacheStats {
        self.cache.stats()
    }

    /// The rows of the season generation `deps`, rendered by `render` on a
    /// miss (concurrent misses render once).
    pub async fn get_or_render(&self, deps: &Deps, render: impl FnOnce() -> Vec<Box<RawValue>>) -> SeasonRows {
        self.cache
            .get_with(deps.as_str().to_owned(), async move { Arc::new(render()) })
            .await
    }
}
