//! Strategy leaderboards and replays over the graded-season cache. Owns the
//! season choice of these endpoints (the named season, else the newest
//! season store) and which cached replay a request gets. Must not touch HTTP
//! or shape JSON (the API's presentation does).

use std::sync::Arc;

use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_strategies::{Accounting, Leaderboard, Replay, UnknownStrategy};

use crate::services::history::{History, SeasonData};
use crate::{Derived, StoreError};

/// Why a leaderboard or replay could not be served.
#[derive(Debug)]
pub enum StrategiesError {
    Store(StoreError),
    /// No season was named and the store has no season for the pair.
    NoSeason {
        sport: Sport,
        model_type: ModelType,
    },
    UnknownStrategy(UnknownStrategy),
}

impl From<StoreError> for StrategiesError {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

/// The strategies use cases.
#[derive(Debug, Clone)]
pub struct Strategies {
    history: Arc<History>,
}

impl Strategies {
    pub fn new(history: Arc<History>) -> Self {
        Self { history }
    }

    /// The named season, or the newest season store.
    pub async fn season(
        &self,
        sport: Sport,
        model_type: ModelType,
        named: Option<SeasonLabel>,
    ) -> Result<Arc<SeasonData>, StrategiesError> {
        let season = match named {
            Some(season) => season,
            None => self
                .history
                .latest_season(sport, model_type)
                .await?
                .ok_or(StrategiesError::NoSeason { sport, model_type })?,
        };
        Ok(self.history.season(sport, model_type, season).await?)
    }

    /// The leaderboard of a season under `accounting`, with the season.
    pub async fn leaderboard(
        &self,
        sport: Sport,
        model_type: ModelType,
        named: Option<SeasonLabel>,
        accounting: Accounting,
    ) -> Result<Derived<(Arc<SeasonData>, Arc<Leaderboard>)>, StrategiesError> {
        let data = self.season(sport, model_type, named).await?;
        let board = data.strategies(accounting);
        let deps = data.deps().param("accounting", accounting.code());
        Ok(Derived::new((data, board), deps))
    }

    /// One strategy replayed over a season, with `excluded_rows` only when
    /// `include_excluded`.
    pub async fn replay(
        &self,
        sport: Sport,
        model_type: ModelType,
        named: Option<SeasonLabel>,
        accounting: Accounting,
        strategy_id: &str,
        include_excluded: bool,
    ) -> Result<Derived<(Arc<SeasonData>, Arc<Replay>)>, StrategiesError> {
        // The id is checked before any season is read: an unknown id is the
        // caller's error whatever the store holds.
        if !linecast_strategies::strategy_ids().contains(&strategy_id) {
            return Err(StrategiesError::UnknownStrategy(UnknownStrategy {
                id: strategy_id.to_owned(),
                valid: linecast_strategies::strategy_ids(),
            }));
        }
        let data = self.season(sport, model_type, named).await?;
        let replay = if include_excluded {
            data.replay(accounting, strategy_id)
        } else {
            data.replay_without_excluded(accounting, strategy_id)
        }
        .map_err(StrategiesError::UnknownStrategy)?;
        let deps = data
            .deps()
            .param("accounting", accounting.code())
            .param("strategy", strategy_id)
            .param("excluded", include_excluded);
        Ok(Derived::new((data, replay), deps))
    }
}

#[cfg(test)]
mod tests {
    use linecast_domain::artifacts::SeasonTable;

    use super::*;
    use crate::testing::MemoryStore;

    const NBA: Sport = Sport::Nba;
    const ML: ModelType = ModelType::WonOnPoints;

    fn empty_season(store: &MemoryStore, start_year: i32) -> SeasonLabel {
        let season = SeasonLabel::starting(NBA, start_year);
        store.put_season(
            NBA,
            ML,
            season,
            SeasonTable {
                sport: NBA,
                model_type: ML,
                season,
                columns: Vec::new(),
                rows: Vec::new(),
            },
        );
        season
    }

    fn service(store: &Arc<MemoryStore>) -> Strategies {
        Strategies::new(Arc::new(History::new(store.clone())))
    }

    #[tokio::test]
    async fn without_a_named_season_the_newest_season_store_is_served_played_or_not() {
        let store = Arc::new(MemoryStore::new());
        empty_season(&store, 2023);
        let newest = empty_season(&store, 2024);

        let (data, board) = service(&store)
            .leaderboard(NBA, ML, None, Accounting::RecordedV2)
            .await
            .unwrap()
            .value;

        assert_eq!(data.season, newest);
        assert_eq!(board.accounting, Accounting::RecordedV2);
        assert_eq!(board.strategies.len(), 16);
    }

    #[tokio::test]
    async fn a_named_season_is_served_as_named() {
        let store = Arc::new(MemoryStore::new());
        let older = empty_season(&store, 2023);
        empty_season(&store, 2024);

        let data = service(&store).season(NBA, ML, Some(older)).await.unwrap();

        assert_eq!(data.season, older);
    }

    #[tokio::test]
    async fn with_no_season_store_there_is_no_season_to_serve() {
        let store = Arc::new(MemoryStore::new());

        let err = service(&store).season(NBA, ML, None).await.unwrap_err();

        assert!(matches!(err, StrategiesError::NoSeason { .. }), "{err:?}");
    }

    #[tokio::test]
    async fn a_replay_is_computed_once_and_keeps_excluded_rows_only_when_asked() {
        let store = Arc::new(MemoryStore::new());
        empty_season(&store, 2024);
        let strategies = service(&store);
        let replay = |include| strategies.replay(NBA, ML, None, Accounting::LegacyV1, "edge-pb", include);

        let (_, with) = replay(true).await.unwrap().value;
        let (_, without) = replay(false).await.unwrap().value;
        let read = replay(false).await.unwrap();
        let (_, again) = read.value;
        assert_ne!(
            read.deps,
            replay(true).await.unwrap().deps,
            "the excluded rows are part of what the replay depends on"
        );

        assert_eq!(with.excluded_rows, Some(Vec::new()));
        assert_eq!(without.excluded_rows, None);
        assert!(Arc::ptr_eq(&without, &again));
    }

    #[tokio::test]
    async fn an_unknown_strategy_id_is_reported_with_the_id() {
        let store = Arc::new(MemoryStore::new());
        empty_season(&store, 2024);

        let err = service(&store)
            .replay(NBA, ML, None, Accounting::RecordedV2, "no-such", false)
            .await
            .unwrap_err();

        assert!(
            matches!(&err, StrategiesError::UnknownStrategy(e) if e.id == "no-such"),
            "{err:?}"
        );
    }
}
