//! Aggregates over several seasons (rolling curves, density grids) and
//! their cache: one value per sport and model type, kept while the
//! generations it was computed from are unchanged.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use linecast_domain::{ModelType, SeasonLabel, Sport};

use crate::ObjectVersion;

/// A cross-season aggregate with the seasons it was computed from.
#[derive(Debug, Clone)]
pub struct CrossSeason<T> {
    pub value: Arc<T>,
    /// Publication time of the newest season archive used.
    pub last_updated: Option<DateTime<Utc>>,
    /// The newest season used.
    pub current: Option<SeasonLabel>,
}

impl<T> CrossSeason<T> {
    /// The aggregate over the seasons of `versions` (oldest first), with
    /// the newest publication time among them and `current`.
    pub fn new(value: Arc<T>, versions: &[(SeasonLabel, ObjectVersion)], current: Option<SeasonLabel>) -> Self {
        Self {
            value,
            last_updated: versions.iter().map(|(_, v)| v.last_modified).max(),
            current,
        }
    }
}

/// A value and the generations it was computed from.
type Generational<T> = (Vec<String>, Arc<T>);

/// One aggregate per sport and model type with the generations it was
/// computed from; a request with other generations recomputes and replaces it.
pub struct CrossSeasonCache<T> {
    values: Mutex<HashMap<(Sport, ModelType), Generational<T>>>,
}

impl<T> Default for CrossSeasonCache<T> {
    fn default() -> Self {
        Self {
            values: Mutex::new(HashMap::new()),
        }
    }
}

impl<T> CrossSeasonCache<T> {
    /// The cached value for these generations, if any.
    pub fn get(&self, key: (Sport, ModelType), generations: &[String]) -> Option<Arc<T>> {
        self.values.lock().ok().and_then(|c| {
            c.get(&key)
                .filter(|(g, _)| g.as_slice() == generations)
                .map(|(_, v)| v.clone())
        })
    }

    /// The cached value for these generations, or `compute()` stored for them.
    pub fn get_or_compute(
        &self,
        key: (Sport, ModelType),
        generations: &[String],
        compute: impl FnOnce() -> T,
    ) -> Arc<T> {
        if let Some(hit) = self.get(key, generations) {
            return hit;
        }
        let value = Arc::new(compute());
        if let Ok(mut c) = self.values.lock() {
            c.insert(key, (generations.to_vec(), value.clone()));
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[test]
    fn a_value_is_computed_once_per_generation_set_and_per_sport_and_model_type() {
        let cache = CrossSeasonCache::default();
        let calls = Cell::new(0);
        let compute = || {
            calls.set(calls.get() + 1);
            calls.get()
        };
        let nba = (Sport::Nba, ModelType::WonOnPoints);
        let v1 = ["a".to_owned(), "b".to_owned()];
        assert_eq!(*cache.get_or_compute(nba, &v1, compute), 1);
        assert_eq!(*cache.get_or_compute(nba, &v1, compute), 1);
        // Another market is its own entry.
        let ou = (Sport::Nba, ModelType::OverUnder);
        assert_eq!(*cache.get_or_compute(ou, &v1, compute), 2);
        // A republished season changes the generations: recomputed, replaced.
        let v2 = ["a".to_owned(), "c".to_owned()];
        assert_eq!(*cache.get_or_compute(nba, &v2, compute), 3);
        assert_eq!(*cache.get_or_compute(nba, &v2, compute), 3);
        assert_eq!(*cache.get_or_compute(nba, &v1, compute), 4);
        assert_eq!(calls.get(), 4);
    }
}
