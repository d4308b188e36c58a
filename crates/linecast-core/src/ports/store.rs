//! The artifact store port: typed, versioned reads of the data contract
//! (`docs/data-contract.md`). Adapters parse each object once per version and
//! hand out shared parsed forms.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::artifacts::{
    BookRow, MarketPriceRow, OddsRow, PredictionTable, ProductCatalog, ReleaseManifest, ScoreRow, SeasonTable,
    TeamTable,
};
use linecast_domain::{ModelType, SeasonLabel, Sport};

/// Failure to read an artifact. Never an empty result in disguise.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The object does not exist.
    #[error("object {object} not found")]
    NotFound { object: String },
    /// The store could not be reached or answered with an error.
    #[error("object store unavailable: {reason}")]
    Unavailable { reason: String },
    /// The object exists but breaks the data contract. `row` is 1-based over
    /// data rows (0 means the header or the whole object).
    #[error("{object} row {row} column {column}: {reason}")]
    Corrupt {
        object: String,
        row: usize,
        column: String,
        reason: String,
    },
}

/// The identity of one version of one object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectVersion {
    pub key: String,
    /// e_tag when the store gives one, otherwise `last_modified` plus size.
    pub version: String,
    pub last_modified: DateTime<Utc>,
    pub size: u64,
}

/// A parsed artifact with the version it was parsed from.
#[derive(Debug)]
pub struct Versioned<T> {
    pub version: ObjectVersion,
    pub value: Arc<T>,
    /// The heap the parsed value holds, as measured when it was parsed
    /// (`None` when the program does not measure: see `linecast-heap`).
    pub heap_bytes: Option<u64>,
}

impl<T> Versioned<T> {
    /// A value whose heap was not measured.
    pub fn unmeasured(version: ObjectVersion, value: Arc<T>) -> Self {
        Self {
            version,
            value,
            heap_bytes: None,
        }
    }
}

impl<T> Clone for Versioned<T> {
    fn clone(&self) -> Self {
        Self {
            version: self.version.clone(),
            value: Arc::clone(&self.value),
            heap_bytes: self.heap_bytes,
        }
    }
}

/// Typed reads of the data contract.
#[async_trait]
pub trait ArtifactStore: Send + Sync {
    async fn teams(&self, sport: Sport) -> Result<Versioned<TeamTable>, StoreError>;
    async fn scores(&self, sport: Sport) -> Result<Versioned<Vec<ScoreRow>>, StoreError>;
    async fn predictions(&self, sport: Sport, model_type: ModelType) -> Result<Versioned<PredictionTable>, StoreError>;
    async fn odds(&self, sport: Sport) -> Result<Versioned<Vec<OddsRow>>, StoreError>;
    /// Every named book's prices (`books/{sport}.csv`). An adapter without
    /// the artifact answers `NotFound`, as a store without the object does:
    /// the single-book odds stand in for it.
    async fn books(&self, sport: Sport) -> Result<Versioned<Vec<BookRow>>, StoreError> {
        Err(StoreError::NotFound {
            object: linecast_domain::artifacts::keys::books(sport),
        })
    }
    /// Season labels with a season store, newest first.
    async fn seasons(&self, sport: Sport, model_type: ModelType) -> Result<Vec<SeasonLabel>, StoreError>;
    /// One season store, parsed. The graded-season cache (`History`) holds
    /// it from then on, so an adapter need not keep it.
    async fn season(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
    ) -> Result<Versioned<SeasonTable>, StoreError>;
    /// The current version of one season store without reading it: what
    /// `History` asks before deciding whether its graded copy is current.
    /// By default it reads the season (an adapter that can ask for a version
    /// alone overrides it).
    async fn season_version(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
    ) -> Result<ObjectVersion, StoreError> {
        self.season(sport, model_type, season).await.map(|v| v.version)
    }
    async fn market_prices(&self, sport: Sport) -> Result<Versioned<Vec<MarketPriceRow>>, StoreError>;
    /// Slate dates with a release manifest, newest first.
    async fn release_dates(&self, sport: Sport) -> Result<Vec<NaiveDate>, StoreError>;
    async fn release(&self, sport: Sport, slate_date: NaiveDate) -> Result<Versioned<ReleaseManifest>, StoreError>;
    async fn product_catalog(&self) -> Result<Versioned<ProductCatalog>, StoreError>;
    /// Raw bytes of a dataset file (for downloads).
    async fn dataset_bytes(&self, key: &str) -> Result<bytes::Bytes, StoreError>;
    /// A cheap reachability check for health reporting.
    async fn ping(&self) -> Result<(), StoreError>;
    /// The current version of every object of `sport` the change stream
    /// watches (its predictions, odds, books, season stores and release manifests),
    /// read by listing, never from the version window. The versions seen
    /// become the ones reads use, so a read after a change sees it.
    async fn watched(&self, sport: Sport) -> Result<Vec<ObjectVersion>, StoreError>;
}

/// The key prefixes the change stream watches for `sport` (an object counts
/// when its key starts with one of them).
pub fn watched_prefixes(sport: Sport) -> [String; 5] {
    use linecast_domain::artifacts::keys;
    [
        format!("predictions/{}/", sport.code()),
        keys::odds(sport),
        keys::books(sport),
        format!("seasons/{}/", sport.code()),
        format!("{}/", keys::releases_prefix(sport)),
    ]
}
