//! `MemoryStore`: the artifact store port over typed values held in memory.
//! Every `put_*` makes a new object version; `fail_with` makes every read
//! answer one error (an outage, a corrupt object).

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::artifacts::{
    BookRow, MarketPriceRow, OddsRow, PredictionTable, ProductCatalog, ReleaseManifest, ScoreRow, SeasonTable,
    TeamTable, keys,
};
use linecast_domain::{ModelType, SeasonLabel, Sport};

use crate::ports::store::{ArtifactStore, ObjectVersion, StoreError, Versioned};

type Value = Arc<dyn Any + Send + Sync>;

#[derive(Default)]
struct Inner {
    objects: HashMap<String, (ObjectVersion, Value)>,
    generation: u64,
    failure: Option<StoreError>,
    reads: u64,
}

/// The artifact store in memory.
#[derive(Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
    modified: Mutex<Option<DateTime<Utc>>>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// The `last_modified` given to objects written from now on (default:
    /// the Unix epoch plus the generation in seconds).
    pub fn set_last_modified(&self, at: DateTime<Utc>) {
        *self.modified.lock().unwrap_or_else(PoisonError::into_inner) = Some(at);
    }

    /// Every read answers `error` until `clear_failure`.
    pub fn fail_with(&self, error: StoreError) {
        self.lock().failure = Some(error);
    }

    pub fn clear_failure(&self) {
        self.lock().failure = None;
    }

    /// Reads answered so far (failed ones included).
    pub fn reads(&self) -> u64 {
        self.lock().reads
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn put<T: Send + Sync + 'static>(&self, key: String, value: T) -> ObjectVersion {
        let modified = *self.modified.lock().unwrap_or_else(PoisonError::into_inner);
        let mut inner = self.lock();
        inner.generation += 1;
        let generation = inner.generation;
        let version = ObjectVersion {
            key: key.clone(),
            version: format!("v{generation}"),
            last_modified: modified
                .unwrap_or_else(|| DateTime::<Utc>::UNIX_EPOCH + chrono::Duration::seconds(generation as i64)),
            size: 0,
        };
        inner.objects.insert(key, (version.clone(), Arc::new(value)));
        version
    }

    /// Removes an object; later reads of it are `NotFound`.
    pub fn remove(&self, key: &str) {
        self.lock().objects.remove(key);
    }

    fn get<T: Send + Sync + 'static>(&self, key: &str) -> Result<Versioned<T>, StoreError> {
        let mut inner = self.lock();
        inner.reads += 1;
        if let Some(failure) = &inner.failure {
            return Err(failure.clone());
        }
        let (version, value) = inner
            .objects
            .get(key)
            .ok_or_else(|| StoreError::NotFound { object: key.to_owned() })?;
        let value = Arc::clone(value).downcast::<T>().map_err(|_| StoreError::Corrupt {
            object: key.to_owned(),
            row: 0,
            column: String::new(),
            reason: "held a value of another type".to_owned(),
        })?;
        Ok(Versioned::unmeasured(version.clone(), value))
    }

    fn keys_under(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let mut inner = self.lock();
        inner.reads += 1;
        if let Some(failure) = &inner.failure {
            return Err(failure.clone());
        }
        Ok(inner
            .objects
            .keys()
            .filter(|k| k.starts_with(prefix))
            .cloned()
            .collect())
    }

    pub fn put_teams(&self, sport: Sport, table: TeamTable) -> ObjectVersion {
        self.put(keys::teams(sport), table)
    }

    pub fn put_scores(&self, sport: Sport, rows: Vec<ScoreRow>) -> ObjectVersion {
        self.put(keys::scores(sport), rows)
    }

    pub fn put_predictions(&self, sport: Sport, model_type: ModelType, table: PredictionTable) -> ObjectVersion {
        self.put(keys::predictions(sport, model_type), table)
    }

    pub fn put_odds(&self, sport: Sport, rows: Vec<OddsRow>) -> ObjectVersion {
        self.put(keys::odds(sport), rows)
    }

    pub fn put_books(&self, sport: Sport, rows: Vec<BookRow>) -> ObjectVersion {
        self.put(keys::books(sport), rows)
    }

    pub fn put_season(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
        table: SeasonTable,
    ) -> ObjectVersion {
        self.put(keys::season(sport, model_type, season), table)
    }

    pub fn put_market_prices(&self, sport: Sport, rows: Vec<MarketPriceRow>) -> ObjectVersion {
        self.put(keys::markets(sport), rows)
    }

    pub fn put_release(&self, sport: Sport, slate_date: NaiveDate, manifest: ReleaseManifest) -> ObjectVersion {
        self.put(keys::release(sport, slate_date), manifest)
    }

    pub fn put_product_catalog(&self, catalog: ProductCatalog) -> ObjectVersion {
        self.put(keys::PRODUCT_CATALOG.to_owned(), catalog)
    }

    pub fn put_dataset(&self, key: &str, bytes: Bytes) -> ObjectVersion {
        self.put(key.to_owned(), bytes)
    }
}

#[async_trait]
impl ArtifactStore for MemoryStore {
    async fn teams(&self, sport: Sport) -> Result<Versioned<TeamTable>, StoreError> {
        self.get(&keys::teams(sport))
    }

    async fn scores(&self, sport: Sport) -> Result<Versioned<Vec<ScoreRow>>, StoreError> {
        self.get(&keys::scores(sport))
    }

    async fn predictions(&self, sport: Sport, model_type: ModelType) -> Result<Versioned<PredictionTable>, StoreError> {
        self.get(&keys::predictions(sport, model_type))
    }

    async fn odds(&self, sport: Sport) -> Result<Versioned<Vec<OddsRow>>, StoreError> {
        self.get(&keys::odds(sport))
    }

    async fn books(&self, sport: Sport) -> Result<Versioned<Vec<BookRow>>, StoreError> {
        self.get(&keys::books(sport))
    }

    async fn seasons(&self, sport: Sport, model_type: ModelType) -> Result<Vec<SeasonLabel>, StoreError> {
        let keys = self.keys_under(&keys::seasons_prefix(sport, model_type))?;
        let mut labels: Vec<SeasonLabel> = keys
            .iter()
            .filter_map(|k| self.get::<SeasonTable>(k).ok())
            .map(|v| v.value.season)
            .collect();
        labels.sort_unstable_by(|a, b| b.cmp(a));
        labels.dedup();
        Ok(labels)
    }

    async fn season(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
    ) -> Result<Versioned<SeasonTable>, StoreError> {
        self.get(&keys::season(sport, model_type, season))
    }

    async fn market_prices(&self, sport: Sport) -> Result<Versioned<Vec<MarketPriceRow>>, StoreError> {
        self.get(&keys::markets(sport))
    }

    async fn release_dates(&self, sport: Sport) -> Result<Vec<NaiveDate>, StoreError> {
        let keys = self.keys_under(&keys::releases_prefix(sport))?;
        let mut dates: Vec<NaiveDate> = keys
            .iter()
            .filter_map(|k| self.get::<ReleaseManifest>(k).ok())
            .map(|v| v.value.slate_date)
            .collect();
        dates.sort_unstable_by(|a, b| b.cmp(a));
        Ok(dates)
    }

    async fn release(&self, sport: Sport, slate_date: NaiveDate) -> Result<Versioned<ReleaseManifest>, StoreError> {
        self.get(&keys::release(sport, slate_date))
    }

    async fn product_catalog(&self) -> Result<Versioned<ProductCatalog>, StoreError> {
        self.get(keys::PRODUCT_CATALOG)
    }

    async fn dataset_bytes(&self, key: &str) -> Result<Bytes, StoreError> {
        self.get::<Bytes>(key).map(|v| (*v.value).clone())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        match &self.lock().failure {
            Some(failure) => Err(failure.clone()),
            None => Ok(()),
        }
    }

    async fn watched(&self, sport: Sport) -> Result<Vec<ObjectVersion>, StoreError> {
        let prefixes = crate::ports::store::watched_prefixes(sport);
        let mut inner = self.lock();
        inner.reads += 1;
        if let Some(failure) = &inner.failure {
            return Err(failure.clone());
        }
        let mut versions: Vec<ObjectVersion> = inner
            .objects
            .iter()
            .filter(|(k, _)| prefixes.iter().any(|p| k.starts_with(p.as_str())))
            .map(|(_, (v, _))| v.clone())
            .collect();
        versions.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(versions)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn every_write_makes_a_new_version_and_a_missing_object_is_not_found() {
        let store = MemoryStore::new();
        assert!(matches!(store.odds(Sport::Nba).await, Err(StoreError::NotFound { .. })));
        let first = store.put_odds(Sport::Nba, Vec::new());
        let second = store.put_odds(Sport::Nba, Vec::new());
        assert_ne!(first.version, second.version);
        assert_eq!(store.odds(Sport::Nba).await.unwrap().version, second);
        store.fail_with(StoreError::Unavailable { reason: "down".into() });
        assert!(matches!(
            store.odds(Sport::Nba).await,
            Err(StoreError::Unavailable { .. })
        ));
    }
}
