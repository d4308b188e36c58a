//! `ReleaseLog` for `SeaAccounts`: the kept releases, one row per series and
//! publication instant (microseconds, the precision both databases keep).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::AccountsError;
use linecast_core::ports::releases::{IndexedGame, KeptRelease, ReleaseLog, Series};
use linecast_domain::{ModelType, Sport};
use sea_orm::sea_query::{OnConflict, Query};
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder};

use crate::SeaAccounts;
use crate::entity::kept_releases::{self, Column, Entity};
use crate::entity::release_games;

use crate::error::{corrupt, db_err};
use crate::sql::statement;

/// Index rows written per statement (SQLite's bound-variable limit).
const INDEX_CHUNK: usize = 500;

/// The rows `game_releases` packed into one text: a line per release,
/// `published_at_us`, digest, game count, size, ordinal and the encoded row,
/// tab separated (the row last: it holds escaped tabs of its own).
fn unpack(series: Series, game_id: &str, packed: &str) -> Result<Vec<(KeptRelease, IndexedGame)>, AccountsError> {
    packed
        .split('\n')
        .map(|line| {
            let mut fields = line.splitn(6, '\t');
            let mut next = |what: &str| {
                fields
                    .next()
                    .ok_or_else(|| corrupt(format_args!("indexed row of {game_id} without its {what}")))
            };
            let number = |what: &str, text: &str| {
                text.parse::<i64>()
                    .map_err(|_| corrupt(format_args!("indexed row of {game_id}: {what} {text:?}")))
            };
            let published_at_us = number("instant", next("instant")?)?;
            let digest = next("digest")?.to_owned();
            let game_count = number("game count", next("game count")?)?;
            let size = number("size", next("size")?)?;
            let ordinal = number("ordinal", next("ordinal")?)?;
            let row = next("row")?.to_owned();
            let published_at = DateTime::<Utc>::from_timestamp_micros(published_at_us)
                .ok_or_else(|| corrupt(format_args!("indexed release instant {published_at_us}")))?;
            Ok((
                KeptRelease {
                    series,
                    published_at,
                    digest,
                    game_count: u32::try_from(game_count).unwrap_or(0),
                    size: u64::try_from(size).unwrap_or(0),
                },
                IndexedGame {
                    game_id: game_id.to_owned(),
                    ordinal: u32::try_from(ordinal).unwrap_or(0),
                    row,
                },
            ))
        })
        .collect()
}

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
        if let Some(game) = games.iter().find(|g| g.row.contains('\n')) {
            return Err(corrupt(format_args!(
                "indexed row of {} holds a line feed",
                game.game_id
            )));
        }
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
        // One row, not one per release: sqlx hands SQLite rows one at a time
        // across a channel, each column copied, which cost more than the
        // history itself at thousands of releases. The text fields cannot
        // hold the separators (digests are hex, rows are escaped).
        let backend = self.db.get_database_backend();
        let (concat, tab, newline) = match backend {
            DbBackend::Postgres => ("string_agg", "chr(9)", "chr(10)"),
            _ => ("group_concat", "char(9)", "char(10)"),
        };
        // Only recorded releases: a release indexed but never recorded (its
        // record failed) is no release.
        let sql = format!(
            "SELECT {concat}(CAST(g.published_at_us AS TEXT) || {tab} || g.digest || {tab} \
             || CAST(g.game_count AS TEXT) || {tab} || CAST(g.size AS TEXT) || {tab} \
             || CAST(g.ordinal AS TEXT) || {tab} || g.row, {newline}) AS packed \
             FROM release_games g WHERE g.series = ? AND g.game_id = ? AND g.published_at_us IN \
             (SELECT k.published_at_us FROM kept_releases k WHERE k.series = ?)"
        );
        let code = series.code();
        let stmt = statement(backend, &sql, vec![code.clone().into(), game_id.into(), code.into()]);
        let packed: Option<String> = match self.db.query_one_raw(stmt).await.map_err(db_err)? {
            Some(row) => row.try_get("", "packed").map_err(db_err)?,
            None => None,
        };
        let mut games = packed
            .as_deref()
            .map_or(Ok(Vec::new()), |packed| unpack(series, game_id, packed))?;
        games.sort_by_key(|(release, _)| release.published_at);
        Ok(games)
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
