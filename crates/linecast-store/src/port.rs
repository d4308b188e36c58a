//! `ArtifactStore` for `ObjectArtifactStore`: which key each read uses and
//! which parser reads it.

use async_trait::async_trait;
use bytes::Bytes;
use chrono::NaiveDate;
use linecast_core::{ArtifactStore, ObjectVersion, StoreError, Versioned};
use linecast_domain::artifacts::{
    BookRow, MarketPriceRow, OddsRow, PredictionTable, ProductCatalog, ReleaseManifest, ScoreRow, SeasonTable,
    TeamTable, keys,
};
use linecast_domain::{ModelType, SeasonLabel, Sport};

use crate::parse;
use crate::store::{Keep, ObjectArtifactStore};

#[async_trait]
impl ArtifactStore for ObjectArtifactStore {
    async fn teams(&self, sport: Sport) -> Result<Versioned<TeamTable>, StoreError> {
        self.load(keys::teams(sport), Keep::Value, parse::teams).await
    }

    async fn scores(&self, sport: Sport) -> Result<Versioned<Vec<ScoreRow>>, StoreError> {
        self.load(keys::scores(sport), Keep::Value, |o, b| parse::scores(o, sport, b))
            .await
    }

    async fn predictions(&self, sport: Sport, model_type: ModelType) -> Result<Versioned<PredictionTable>, StoreError> {
        self.load(keys::predictions(sport, model_type), Keep::Value, |o, b| {
            parse::predictions(o, sport, model_type, b)
        })
        .await
    }

    async fn odds(&self, sport: Sport) -> Result<Versioned<Vec<OddsRow>>, StoreError> {
        self.load(keys::odds(sport), Keep::Value, |o, b| parse::odds(o, sport, b))
            .await
    }

    async fn books(&self, sport: Sport) -> Result<Versioned<Vec<BookRow>>, StoreError> {
        self.load(keys::books(sport), Keep::Value, |o, b| parse::books(o, sport, b))
            .await
    }

    async fn seasons(&self, sport: Sport, model_type: ModelType) -> Result<Vec<SeasonLabel>, StoreError> {
        let names = self.names_under(&keys::seasons_prefix(sport, model_type)).await?;
        let mut labels: Vec<SeasonLabel> = names
            .iter()
            .filter_map(|n| n.strip_suffix(".csv"))
            .filter_map(|stem| SeasonLabel::parse(sport, stem).ok())
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
        self.load(keys::season(sport, model_type, season), Keep::FailureOnly, |o, b| {
            parse::season(o, sport, model_type, season, b)
        })
        .await
    }

    async fn season_version(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
    ) -> Result<ObjectVersion, StoreError> {
        self.version(&keys::season(sport, model_type, season)).await
    }

    async fn market_prices(&self, sport: Sport) -> Result<Versioned<Vec<MarketPriceRow>>, StoreError> {
        self.load(keys::markets(sport), Keep::Value, parse::market_prices).await
    }

    async fn release_dates(&self, sport: Sport) -> Result<Vec<NaiveDate>, StoreError> {
        let names = self.names_under(&keys::releases_prefix(sport)).await?;
        Ok(self.dates_of_listing(sport, &names).as_ref().clone())
    }

    async fn release(&self, sport: Sport, slate_date: NaiveDate) -> Result<Versioned<ReleaseManifest>, StoreError> {
        self.load(keys::release(sport, slate_date), Keep::Value, |o, b| {
            parse::release(o, sport, slate_date, b)
        })
        .await
    }

    async fn product_catalog(&self) -> Result<Versioned<ProductCatalog>, StoreError> {
        self.load(keys::PRODUCT_CATALOG.to_owned(), Keep::Value, parse::catalog)
            .await
    }

    /// Not cached: downloads are rare and datasets large.
    async fn dataset_bytes(&self, key: &str) -> Result<Bytes, StoreError> {
        self.get(key).await.map(|(_, bytes)| bytes)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.ping_root().await
    }

    async fn watched(&self, sport: Sport) -> Result<Vec<linecast_core::ObjectVersion>, StoreError> {
        self.list_watched(sport).await
    }
}
