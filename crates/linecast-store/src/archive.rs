//! `ReleaseArchive` for `ObjectArtifactStore`: kept releases' bytes under
//! the archive prefix of the same store, written once per digest, parsed
//! once per digest with the data contract's parsers.

use async_trait::async_trait;
use bytes::Bytes;
use linecast_core::ports::releases::{KeptRelease, ReleaseArchive, Series};
use linecast_core::{ObjectVersion, StoreError, Versioned};
use linecast_domain::artifacts::{BookRow, OddsRow, PredictionTable};
use linecast_domain::{ModelType, Sport};

use crate::parse;
use crate::store::ObjectArtifactStore;

/// The version a kept release is read as: its archive key, its digest and
/// its publication instant (what `predictions_date` shows).
fn kept_version(release: &KeptRelease) -> ObjectVersion {
    ObjectVersion {
        key: release.series.archive_key(&release.digest),
        version: release.digest.clone(),
        last_modified: release.published_at,
        size: release.size,
    }
}

#[async_trait]
impl ReleaseArchive for ObjectArtifactStore {
    async fn current(&self, key: &str) -> Result<(ObjectVersion, Bytes), StoreError> {
        self.get(key).await
    }

    async fn keep(&self, key: &str, bytes: Bytes) -> Result<(), StoreError> {
        self.put_once(key, bytes).await
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.delete_key(key).await
    }

    fn count_games(&self, series: Series, object: &str, bytes: &[u8]) -> Result<u32, StoreError> {
        let rows = match series {
            Series::Predictions(sport, model_type) => parse::predictions(object, sport, model_type, bytes)?.rows.len(),
            Series::Odds(sport) => parse::odds(object, sport, bytes)?.len(),
            Series::Books(sport) => {
                let rows = parse::books(object, sport, bytes)?;
                let mut games: Vec<&str> = rows.iter().map(|r| r.game_id.as_str()).collect();
                games.sort_unstable();
                games.dedup();
                games.len()
            }
        };
        Ok(u32::try_from(rows).unwrap_or(u32::MAX))
    }

    fn read_predictions(
        &self,
        sport: Sport,
        model_type: ModelType,
        object: &str,
        bytes: &[u8],
    ) -> Result<PredictionTable, StoreError> {
        parse::predictions(object, sport, model_type, bytes)
    }

    async fn kept_predictions(&self, release: &KeptRelease) -> Result<Versioned<PredictionTable>, StoreError> {
        let Series::Predictions(sport, model_type) = release.series else {
            return Err(StoreError::NotFound {
                object: release.series.archive_key(&release.digest),
            });
        };
        self.load_written_once(kept_version(release), |o, b| {
            parse::predictions(o, sport, model_type, b)
        })
        .await
    }

    async fn kept_odds(&self, release: &KeptRelease) -> Result<Versioned<Vec<OddsRow>>, StoreError> {
        let Series::Odds(sport) = release.series else {
            return Err(StoreError::NotFound {
                object: release.series.archive_key(&release.digest),
            });
        };
        self.load_written_once(kept_version(release), |o, b| parse::odds(o, sport, b))
            .await
    }

    async fn kept_books(&self, release: &KeptRelease) -> Result<Versioned<Vec<BookRow>>, StoreError> {
        let Series::Books(sport) = release.series else {
            return Err(StoreError::NotFound {
                object: release.series.archive_key(&release.digest),
            });
        };
        self.load_written_once(kept_version(release), |o, b| parse::books(o, sport, b))
            .await
    }
}
