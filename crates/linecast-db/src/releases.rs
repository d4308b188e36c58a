//! `ReleaseLog` for `SeaAccounts`: the kept releases, one row per series and
//! publication instant (microseconds, the precision both databases keep).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::AccountsError;
use linecast_core::ports::releases::{IndexedGame, KeptRelease, ReleaseLog, Series};
use linecast_domain::{ModelType, Sport};
use sea_orm::sea_query::{OnConflict, Query};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use crate::SeaAccounts;
use crate::entity::kept_releases::{self, Column, Entity};
use crate::entity::release_games;

/// Index rows written per statement (SQLite's bound-variable limit).
const INDEX_CHUNK: usize = 500;
use crate::error::{corrupt, db_err};

fn to_release(m: kept_releases::Model) -> Result<KeptRelease, AccountsError> {
    let sport = Sport::parse(&m.sport).map_err(|_| corrupt(format_args!("kept release sport {}", m.sport)))?;
    let model_type = m
        .model_type
        .as_deref()
        .map(ModelType::parse)
        .transpose()
        .map_err(|_| corrupt(format_args!("kept release model type {:?}", m.model_type)))?;
    let series = Series::from_parts(sport, &m.artifact, model_type)
        .ok_or_else(|| corrupt(format_args!("kept release series {}", m.series)))?;
    let published_at = DateTime::<Utc>::from_timestamp_micros(m.published_at_us)
        .ok_or_else(|| corrupt(format_args!("kept release instant {}", m.published_at_us)))?;
    Ok(KeptRelease {
        series,
        published_at,
        digest: m.digest,
        game_count: u32::try_from(m.game_count).unwrap_or(0),
        size: u64::try_from(m.size).unwrap_or(0),
    })
}

#[async_trait]
impl ReleaseLog for SeaAccounts {
    async fn record(&self, release: &KeptRelease) -> Result<bool, AccountsError> {
        let row = kept_releases::ActiveModel {
            series: Set(release.series.code()),
            published_at_us: Set(release.published_at.timestamp_micros()),
            sport: Set(release.series.sport().code().to_owned()),
            artifact: Set(release.series.artifact().to_owned()),
            model_type: Set(release.series.model_type().map(|m| m.code().to_owned())),
            digest: Set(release.digest.clone()),
            game_count: Set(i32::try_from(release.game_count).unwrap_or(i32::MAX)),
            size: Set(i64::try_from(release.size).unwrap_or(i64::MAX)),
            recorded_at: Set(Utc::now()),
        };
        // Of several instances recording the same version, one inserts.
        let inserted = Entity::insert(row)
            .on_conflict(
                OnConflict::columns([Column::Series, Column::PublishedAtUs])
                    .do_nothing()
                    .to_owned(),
            )
            .exec_without_returning(&self.db)
            .await
            .map_err(db_err)?;
        Ok(inserted > 0)
    }

    async fn releases(&self, series: Series) -> Result<Vec<KeptRelease>, AccountsError> {
        Entity::find()
            .filter(Column::Series.eq(series.code()))
            .order_by_asc(Column::PublishedAtUs)
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(to_release)
            .collect()
    }

    async fn forget_before(&self, before: DateTime<Utc>) -> Result<Vec<KeptRelease>, AccountsError> {
        let cutoff = before.timestamp_micros();
        let old: Vec<KeptRelease> = Entity::find()
            .filter(Column::PublishedAtUs.lt(cutoff))
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(to_release)
            .collect::<Result<_, _>>()?;
        Entity::delete_many()
            .filter(Column::PublishedAtUs.lt(cutoff))
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        release_games::Entity::delete_many()
            .filter(release_games::Column::PublishedAtUs.lt(cutoff))
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        Ok(old)
    }

    async fn index_games(&self, release: &KeptRelease, games: &[IndexedGame]) -> Result<(), AccountsError> {
        for chunk in games.chunks(INDEX_CHUNK) {
            let rows = chunk.iter().map(|game| release_games::ActiveModel {
                series: Set(release.series.code()),
                game_id: Set(game.game_id.clone()),
                published_at_us: Set(release.published_at.timestamp_micros()),
                digest: Set(release.digest.clone()),
                game_count: Set(i32::try_from(release.game_count).unwrap_or(i32::MAX)),
                size: Set(i64::try_from(release.size).unwrap_or(i64::MAX)),
                ordinal: Set(i32::try_from(game.ordinal).unwrap_or(i32::MAX)),
                row: Set(game.row.clone()),
            });
            // Of several instances (or a re-index) writing the same game of
            // the same release, one inserts; the rows are the same.
            release_games::Entity::insert_many(rows)
                .on_conflict(
                    OnConflict::columns([
                        release_games::Column::Series,
                        release_games::Column::GameId,
                        release_games::Column::PublishedAtUs,
                    ])
                    .do_nothing()
                    .to_owned(),
                )
                .exec_without_returning(&self.db)
                .await
                .map_err(db_err)?;
        }
        Ok(())
    }

    async fn game_releases(
        &self,
        series: Series,
        game_id: &str,
    ) -> Result<Vec<(KeptRelease, IndexedGame)>, AccountsError> {
        let code = series.code();
        // Only recorded releases: a release indexed but never recorded (its
        // record failed) is no release.
        let recorded = Query::select()
            .column(Column::PublishedAtUs)
            .from(Entity)
            .and_where(Column::Series.eq(code.clone()))
            .to_owned();
        release_games::Entity::find()
            .filter(release_games::Column::Series.eq(code))
            .filter(release_games::Column::GameId.eq(game_id))
            .filter(release_games::Column::PublishedAtUs.in_subquery(recorded))
            .order_by_asc(release_games::Column::PublishedAtUs)
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(|m| {
                let published_at = DateTime::<Utc>::from_timestamp_micros(m.published_at_us)
                    .ok_or_else(|| corrupt(format_args!("indexed release instant {}", m.published_at_us)))?;
                Ok((
                    KeptRelease {
                        series,
                        published_at,
                        digest: m.digest,
                        game_count: u32::try_from(m.game_count).unwrap_or(0),
                        size: u64::try_from(m.size).unwrap_or(0),
                    },
                    IndexedGame {
                        game_id: m.game_id,
                        ordinal: u32::try_from(m.ordinal).unwrap_or(0),
                        row: m.row,
                    },
                ))
            })
            .collect()
    }

    async fn unindexed(&self, series: Series) -> Result<Vec<KeptRelease>, AccountsError> {
        let code = series.code();
        let indexed = Query::select()
            .column(release_games::Column::PublishedAtUs)
            .from(release_games::Entity)
            .and_where(release_games::Column::Series.eq(code.clone()))
            .to_owned();
        Entity::find()
            .filter(Column::Series.eq(code))
            .filter(Column::GameCount.gt(0))
            .filter(Column::PublishedAtUs.not_in_subquery(indexed))
            .order_by_asc(Column::PublishedAtUs)
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(to_release)
            .collect()
    }
}
