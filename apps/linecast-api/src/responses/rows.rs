//! A season's served rows, each rendered once per season generation and
//! kept, so a results page of any size is assembled from stored row bytes
//! with no per-row work. Keyed by what the season depends on (its store's
//! key and version), weighed in bytes.

use std::sync::Arc;

use linecast_core::Deps;
use serde_json::value::RawValue;

/// Rendered rows of one season generation, oldest first.
pub type SeasonRows = Arc<Vec<Box<RawValue>>>;

/// Rendered season rows by season generation, LRU, weighed in bytes.
pub struct RowCache {
    cache: moka::sync::Cache<String, SeasonRows>,
}

impl RowCache {
    /// A cache holding at most about `budget_bytes` of rendered rows.
    pub fn new(budget_bytes: u64) -> Self {
        Self {
            cache: moka::sync::Cache::builder()
                .max_capacity(budget_bytes)
                .weigher(|key: &String, rows: &SeasonRows| {
                    let bytes: usize = rows.iter().map(|r| r.get().len() + 16).sum();
                    u32::try_from(bytes + key.len() + 64).unwrap_or(u32::MAX)
                })
                .build(),
        }
    }

    /// The rows of the season generation `deps`, rendered by `render` on a
    /// miss (concurrent misses render once).
    pub fn get_or_render(&self, deps: &Deps, render: impl FnOnce() -> Vec<Box<RawValue>>) -> SeasonRows {
        self.cache.get_with_by_ref(deps.as_str(), || Arc::new(render()))
    }
}
