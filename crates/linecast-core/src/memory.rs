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
//! Every one of them is a [`Budgeted`] cache (`linecast-cache`): one type,
//! so each share is weighed, evicted and reported the same way.
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

pub use linecast_cache::{Budgeted, CacheStats};

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
