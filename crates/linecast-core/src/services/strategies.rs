//! Strategy leaderboards and replays over the graded-season cache. Owns the
//! season choice of these endpoints (the named season, else the newest
//! season store) and which cached replay a request gets. Must not touch HTTP
//! or shape JSON (the API's presentation does).

use std::sync::Arc;

use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_strategies::{Accounting, Leaderboard, Replay, UnknownStrategy};

use crate::StoreError;
use crate::services::history::{History, SeasonData};

/// Why a leaderboard or replay could not be served.
#[derive(Debug)]
pub enum StrategiesError {
    Store(StoreError),
    /// No season was named and the store has no season for the pair.
    NoSeason,
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
                .ok_or(StrategiesError::NoSeason)?,
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
    ) -> Result<(Arc<SeasonData>, Arc<Leaderboard>), StrategiesError> {
        let data = self.season(sport, model_type, named).await?;
        let board = data.strategies(accounting);
        Ok((data, board))
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
    ) -> Result<(Arc<SeasonData>, Arc<Replay>), StrategiesError> {
        let data = self.season(sport, model_type, named).await?;
        let replay = if include_excluded {
            data.replay(accounting, strategy_id)
        } else {
            data.replay_without_excluded(accounting, strategy_id)
        }
        .map_err(StrategiesError::UnknownStrategy)?;
        Ok((data, replay))
    }
}
