//! A minimal in-memory `ArtifactStore`: teams, scores and market snapshots
//! per sport; everything else is NotFound.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use linecast_core::{ArtifactStore, ObjectVersion, StoreError, Versioned};
use linecast_domain::artifacts::{
    MarketPriceRow, OddsRow, PredictionTable, ProductCatalog, ReleaseManifest, ScoreRow, SeasonTable, TeamTable,
};
use linecast_domain::{ModelType, SeasonLabel, Sport};

#[derive(Default)]
pub struct FakeStore {
    pub teams: HashMap<Sport, TeamTable>,
    pub scores: HashMap<Sport, Vec<ScoreRow>>,
    pub markets: HashMap<Sport, Result<Vec<MarketPriceRow>, StoreError>>,
    pub calls: AtomicUsize,
}

fn versioned<T>(key: &str, value: T) -> Versioned<T> {
    let version = ObjectVersion {
        key: key.to_owned(),
        version: "v1".to_owned(),
        last_modified: DateTime::<Utc>::UNIX_EPOCH,
        size: 0,
    };
    Versioned::unmeasured(version, Arc::new(value))
}

fn not_found<T>(object: &str) -> Result<T, StoreError> {
    Err(StoreError::NotFound {
        object: object.to_owned(),
    })
}

impl FakeStore {
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    fn count(&self) {
        self.calls.fetch_add(1, Ordering::SeqCst);
    }
}

#[async_trait]
impl ArtifactStore for FakeStore {
    async fn teams(&self, sport: Sport) -> Result<Versioned<TeamTable>, StoreError> {
        self.count();
        let key = format!("teams/{sport}.csv");
        self.teams
            .get(&sport)
            .map_or_else(|| not_found(&key), |t| Ok(versioned(&key, t.clone())))
    }
    async fn scores(&self, sport: Sport) -> Result<Versioned<Vec<ScoreRow>>, StoreError> {
        self.count();
        let key = format!("scores/{sport}.csv");
        self.scores
            .get(&sport)
            .map_or_else(|| not_found(&key), |s| Ok(versioned(&key, s.clone())))
    }
    async fn predictions(&self, _: Sport, _: ModelType) -> Result<Versioned<PredictionTable>, StoreError> {
        self.count();
        not_found("predictions")
    }
    async fn odds(&self, _: Sport) -> Result<Versioned<Vec<OddsRow>>, StoreError> {
        not_found("odds")
    }
    async fn seasons(&self, _: Sport, _: ModelType) -> Result<Vec<SeasonLabel>, StoreError> {
        not_found("seasons")
    }
    async fn season(&self, _: Sport, _: ModelType, _: SeasonLabel) -> Result<Versioned<SeasonTable>, StoreError> {
        not_found("season")
    }
    async fn market_prices(&self, sport: Sport) -> Result<Versioned<Vec<MarketPriceRow>>, StoreError> {
        self.count();
        let key = format!("markets/{sport}.csv");
        match self.markets.get(&sport) {
            Some(Ok(rows)) => Ok(versioned(&key, rows.clone())),
            Some(Err(e)) => Err(e.clone()),
            None => not_found(&key),
        }
    }
    async fn release_dates(&self, _: Sport) -> Result<Vec<NaiveDate>, StoreError> {
        not_found("releases")
    }
    async fn release(&self, _: Sport, _: NaiveDate) -> Result<Versioned<ReleaseManifest>, StoreError> {
        not_found("release")
    }
    async fn product_catalog(&self) -> Result<Versioned<ProductCatalog>, StoreError> {
        not_found("products/catalog.json")
    }
    async fn dataset_bytes(&self, key: &str) -> Result<bytes::Bytes, StoreError> {
        not_found(key)
    }
    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }

    async fn watched(&self, _sport: Sport) -> Result<Vec<ObjectVersion>, StoreError> {
        Ok(Vec::new())
    }
}
