//! Season history: each season store is graded, ordered and aggregated once
//! per generation (object version) and shared by results, seasons, summary,
//! tracking, team form, rolling, density and strategies, so every endpoint
//! grades the same rows with one implementation.
//!
//! Owns the season cache ([`History`]) and the history use cases (season
//! choice, results pages, team form, cross-season aggregates). Must not
//! touch HTTP or shape JSON responses (the API's presentation does); the
//! row rendering in [`rows`] is the one served shape of a stored row.

pub mod rows;
pub mod team_form;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use linecast_domain::artifacts::SeasonTable;
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_grading::window::is_decided;
use linecast_grading::{
    Density, GradedRow, Rolling, Summary, Tracking, density, grade_rows, rolling, summarize_graded, track_graded,
};
use linecast_paging::{Order, PagingError, Plan, Request, plan};
use linecast_strategies::{Accounting, Leaderboard, Replay, UnknownStrategy, leaderboard};
use serde_json::value::RawValue;

use crate::services::slate::et_date;
use crate::{ArtifactStore, ObjectVersion, StoreError};
use team_form::TeamFormInputs;

/// A season is live while it has a decided game within this many days.
pub const LIVE_WINDOW_DAYS: i64 = 14;

type Key = (Sport, ModelType, SeasonLabel);

/// Memory per byte of CSV once a season is parsed (about 3x), graded and
/// rendered to JSON (about 4x): the weight used against the budget.
const WEIGHT_PER_OBJECT_BYTE: u64 = 8;
/// A cross-season aggregate and the season versions it was computed from.
type Versioned<T> = (Vec<String>, Arc<T>);

/// One generation of one season store, graded.
pub struct SeasonData {
    pub sport: Sport,
    pub model_type: ModelType,
    pub season: SeasonLabel,
    pub version: ObjectVersion,
    pub table: Arc<SeasonTable>,
    /// Aligned with `table.rows`.
    pub graded: Vec<GradedRow>,
    /// Indices of the rows served (in scope: professional preseason rows are
    /// left out), oldest first by (date, time, teams).
    pub order: Vec<usize>,
    summary: OnceLock<Arc<Summary>>,
    tracking: OnceLock<Arc<Tracking>>,
    strategies: [OnceLock<Arc<Leaderboard>>; 2],
    /// Keyed by accounting, strategy id and whether excluded rows are kept.
    replays: Mutex<HashMap<(usize, String, bool), Arc<Replay>>>,
    rendered: OnceLock<Arc<Vec<Box<RawValue>>>>,
}

impl std::fmt::Debug for SeasonData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeasonData")
            .field("season", &self.season)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl SeasonData {
    fn build(
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
        version: ObjectVersion,
        table: Arc<SeasonTable>,
    ) -> Self {
        let graded = grade_rows(&table.rows, sport, model_type);
        let mut order: Vec<usize> = (0..table.rows.len()).filter(|i| graded[*i].in_scope).collect();
        order.sort_by(|a, b| table.rows[*a].key.cmp(&table.rows[*b].key));
        Self {
            sport,
            model_type,
            season,
            version,
            table,
            graded,
            order,
            summary: OnceLock::new(),
            tracking: OnceLock::new(),
            strategies: [OnceLock::new(), OnceLock::new()],
            replays: Mutex::new(HashMap::new()),
            rendered: OnceLock::new(),
        }
    }

    /// Approximate memory held for this season: the parsed rows, grading,
    /// aggregates and rendered JSON, estimated from the object size.
    pub fn weight(&self) -> u64 {
        self.version
            .size
            .saturating_mul(WEIGHT_PER_OBJECT_BYTE)
            .saturating_add(4096)
    }

    /// Rows served by `/results`: in scope, every row of the season.
    pub fn total(&self) -> usize {
        self.order.len()
    }

    /// The date of the latest game played against a posted line (a final
    /// and a line; a push counts): what makes a season `current_season`.
    pub fn latest_played(&self) -> Option<NaiveDate> {
        self.order
            .iter()
            .filter(|i| self.graded[**i].decision.is_some())
            .map(|i| self.table.rows[*i].key.date)
            .max()
    }

    /// The date of the latest decided game (a final and a line, not a
    /// push): what keeps a season `live`.
    pub fn latest_decided(&self) -> Option<NaiveDate> {
        self.order
            .iter()
            .filter(|i| is_decided(&self.graded[**i]))
            .map(|i| self.table.rows[*i].key.date)
            .max()
    }

    pub fn first_date(&self) -> Option<NaiveDate> {
        self.order.first().map(|i| self.table.rows[*i].key.date)
    }

    pub fn last_date(&self) -> Option<NaiveDate> {
        self.order.last().map(|i| self.table.rows[*i].key.date)
    }

    pub fn summary(&self) -> Arc<Summary> {
        self.summary
            .get_or_init(|| Arc::new(summarize_graded(&self.table.rows, &self.graded, self.model_type)))
            .clone()
    }

    pub fn tracking(&self) -> Arc<Tracking> {
        self.tracking
            .get_or_init(|| Arc::new(track_graded(&self.table.rows, &self.graded)))
            .clone()
    }

    pub fn strategies(&self, accounting: Accounting) -> Arc<Leaderboard> {
        let slot = match accounting {
            Accounting::LegacyV1 => &self.strategies[0],
            Accounting::RecordedV2 => &self.strategies[1],
        };
        slot.get_or_init(|| Arc::new(leaderboard(&self.table.rows, self.sport, self.model_type, accounting)))
            .clone()
    }

    /// One strategy's replay (with excluded rows), computed once per
    /// generation, accounting and strategy.
    pub fn replay(&self, accounting: Accounting, strategy_id: &str) -> Result<Arc<Replay>, UnknownStrategy> {
        let slot = (accounting as usize, strategy_id.to_owned(), true);
        if let Some(hit) = self.cached_replay(&slot) {
            return Ok(hit);
        }
        let replay = Arc::new(linecast_strategies::replay(
            &self.table.rows,
            self.sport,
            self.model_type,
            accounting,
            strategy_id,
        )?);
        Ok(self.cache_replay(slot, replay))
    }

    /// The replay without `excluded_rows`, also cached, so a request without
    /// `include_excluded` copies nothing.
    pub fn replay_without_excluded(
        &self,
        accounting: Accounting,
        strategy_id: &str,
    ) -> Result<Arc<Replay>, UnknownStrategy> {
        let slot = (accounting as usize, strategy_id.to_owned(), false);
        if let Some(hit) = self.cached_replay(&slot) {
            return Ok(hit);
        }
        let trimmed = Arc::new((*self.replay(accounting, strategy_id)?).clone().without_excluded());
        Ok(self.cache_replay(slot, trimmed))
    }

    fn cached_replay(&self, slot: &(usize, String, bool)) -> Option<Arc<Replay>> {
        self.replays.lock().ok().and_then(|m| m.get(slot).cloned())
    }

    fn cache_replay(&self, slot: (usize, String, bool), replay: Arc<Replay>) -> Arc<Replay> {
        if let Ok(mut m) = self.replays.lock() {
            m.insert(slot, replay.clone());
        }
        replay
    }

    /// Every served row as JSON, oldest first, rendered once per generation.
    pub fn rendered_rows(&self) -> Arc<Vec<Box<RawValue>>> {
        self.rendered
            .get_or_init(|| {
                Arc::new(rows::render_rows(
                    &self.table,
                    self.model_type,
                    &self.graded,
                    &self.order,
                ))
            })
            .clone()
    }
}

/// What the seasons endpoint reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeasonList {
    /// Newest first.
    pub seasons: Vec<SeasonLabel>,
    pub current_season: Option<SeasonLabel>,
    pub live: bool,
}

/// The graded-season cache over an artifact store.
pub struct History {
    store: Arc<dyn ArtifactStore>,
    /// Graded seasons with their last use tick, bounded by `budget_bytes`.
    cache: Mutex<HashMap<Key, (Arc<SeasonData>, u64)>>,
    budget_bytes: u64,
    tick: std::sync::atomic::AtomicU64,
    rolling: Mutex<HashMap<(Sport, ModelType), Versioned<Rolling>>>,
    density: Mutex<HashMap<(Sport, ModelType), Versioned<Density>>>,
}

/// A cross-season aggregate with the seasons it was computed from.
#[derive(Debug, Clone)]
pub struct CrossSeason<T> {
    pub value: Arc<T>,
    /// Publication time of the newest season archive used.
    pub last_updated: Option<DateTime<Utc>>,
    /// The newest season used.
    pub current: Option<SeasonLabel>,
    /// The generations the value was computed from (object versions, and
    /// for density the current season): equal generations, equal value.
    pub generations: String,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History").finish_non_exhaustive()
    }
}

impl History {
    /// Default budget of graded seasons: 256 MiB.
    pub const DEFAULT_BUDGET_BYTES: u64 = 256 * 1024 * 1024;

    /// A graded-season cache of [`Self::DEFAULT_BUDGET_BYTES`].
    pub fn new(store: Arc<dyn ArtifactStore>) -> Self {
        Self::with_budget(store, Self::DEFAULT_BUDGET_BYTES)
    }

    /// A cache holding graded seasons up to about `budget_bytes`; the least
    /// recently used season is dropped first (it is recomputed on next use).
    pub fn with_budget(store: Arc<dyn ArtifactStore>, budget_bytes: u64) -> Self {
        Self {
            store,
            cache: Mutex::new(HashMap::new()),
            budget_bytes,
            tick: std::sync::atomic::AtomicU64::new(0),
            rolling: Mutex::new(HashMap::new()),
            density: Mutex::new(HashMap::new()),
        }
    }

    pub fn store(&self) -> &Arc<dyn ArtifactStore> {
        &self.store
    }

    /// The graded season; recomputed only when the object version changed.
    pub async fn season(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
    ) -> Result<Arc<SeasonData>, StoreError> {
        let artifact = self.store.season(sport, model_type, season).await?;
        let key = (sport, model_type, season);
        let now = self.tick.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut cache) = self.cache.lock()
            && let Some((hit, used)) = cache.get_mut(&key)
            && hit.version == artifact.version
        {
            *used = now;
            return Ok(hit.clone());
        }
        let data = Arc::new(SeasonData::build(
            sport,
            model_type,
            season,
            artifact.version,
            artifact.value,
        ));
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(key, (data.clone(), now));
            let mut total: u64 = cache.values().map(|(d, _)| d.weight()).sum();
            while total > self.budget_bytes && cache.len() > 1 {
                let Some(oldest) = cache.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| *k) else {
                    break;
                };
                if let Some((gone, _)) = cache.remove(&oldest) {
                    total = total.saturating_sub(gone.weight());
                }
            }
        }
        Ok(data)
    }

    /// Season labels with a store, newest first.
    pub async fn seasons(&self, sport: Sport, model_type: ModelType) -> Result<Vec<SeasonLabel>, StoreError> {
        let mut seasons = self.store.seasons(sport, model_type).await?;
        seasons.sort_unstable_by(|a, b| b.cmp(a));
        Ok(seasons)
    }

    /// The season list with the spec's definitions: `current_season` is the
    /// latest season with a game played against a posted line, pushes
    /// included (between seasons, the one just finished); `live` while it
    /// has a decided game (not a push) within the last 14 days (ET dates).
    pub async fn season_list(
        &self,
        sport: Sport,
        model_type: ModelType,
        now: DateTime<Utc>,
    ) -> Result<SeasonList, StoreError> {
        let seasons = self.seasons(sport, model_type).await?;
        let today = et_date(now);
        for season in seasons.clone() {
            let data = self.season(sport, model_type, season).await?;
            if data.latest_played().is_some() {
                let live = data
                    .latest_decided()
                    .is_some_and(|latest| latest <= today && today - latest <= Duration::days(LIVE_WINDOW_DAYS));
                return Ok(SeasonList {
                    seasons,
                    current_season: Some(season),
                    live,
                });
            }
        }
        Ok(SeasonList {
            seasons,
            current_season: None,
            live: false,
        })
    }

    /// The current season, or `NotFound` when no season has a decided game.
    pub async fn current(
        &self,
        sport: Sport,
        model_type: ModelType,
        now: DateTime<Utc>,
    ) -> Result<SeasonLabel, StoreError> {
        self.season_list(sport, model_type, now)
            .await?
            .current_season
            .ok_or_else(|| StoreError::NotFound {
                object: linecast_domain::artifacts::keys::seasons_prefix(sport, model_type),
            })
    }
}

impl History {
    async fn load_all(
        &self,
        sport: Sport,
        model_type: ModelType,
        seasons: &[SeasonLabel],
    ) -> Result<Vec<Arc<SeasonData>>, StoreError> {
        let mut out = Vec::with_capacity(seasons.len());
        for season in seasons {
            out.push(self.season(sport, model_type, *season).await?);
        }
        // Oldest first.
        out.sort_by_key(|d| d.season);
        Ok(out)
    }

    /// Rolling curves over every archived season, recomputed only when a
    /// season's generation changed.
    pub async fn rolling(&self, sport: Sport, model_type: ModelType) -> Result<CrossSeason<Rolling>, StoreError> {
        let seasons = self.seasons(sport, model_type).await?;
        let data = self.load_all(sport, model_type, &seasons).await?;
        let versions: Vec<String> = data.iter().map(|d| d.version.version.clone()).collect();
        let cached = self.rolling.lock().ok().and_then(|c| {
            c.get(&(sport, model_type))
                .filter(|(v, _)| *v == versions)
                .map(|(_, r)| r.clone())
        });
        let value = if let Some(v) = cached {
            v
        } else {
            let slices: Vec<(SeasonLabel, &[linecast_domain::SeasonRow])> =
                data.iter().map(|d| (d.season, d.table.rows.as_slice())).collect();
            let value = Arc::new(rolling(&slices, sport, model_type));
            if let Ok(mut c) = self.rolling.lock() {
                c.insert((sport, model_type), (versions.clone(), value.clone()));
            }
            value
        };
        Ok(CrossSeason {
            value,
            last_updated: data.iter().map(|d| d.version.last_modified).max(),
            current: data.last().map(|d| d.season),
            generations: versions.join(","),
        })
    }

    /// Density grids of the current season against the previous ten.
    pub async fn density(
        &self,
        sport: Sport,
        model_type: ModelType,
        now: DateTime<Utc>,
    ) -> Result<CrossSeason<Density>, StoreError> {
        let current = self.current(sport, model_type, now).await?;
        let seasons: Vec<SeasonLabel> = self
            .seasons(sport, model_type)
            .await?
            .into_iter()
            .filter(|s| *s <= current && s.start_year() >= current.start_year() - 10)
            .collect();
        let data = self.load_all(sport, model_type, &seasons).await?;
        let mut versions: Vec<String> = data.iter().map(|d| d.version.version.clone()).collect();
        versions.push(current.to_string());
        let cached = self.density.lock().ok().and_then(|c| {
            c.get(&(sport, model_type))
                .filter(|(v, _)| *v == versions)
                .map(|(_, r)| r.clone())
        });
        let value = if let Some(v) = cached {
            v
        } else {
            let slices: Vec<(SeasonLabel, &[linecast_domain::SeasonRow])> =
                data.iter().map(|d| (d.season, d.table.rows.as_slice())).collect();
            let value = Arc::new(density(current, &slices, sport, model_type));
            if let Ok(mut c) = self.density.lock() {
                c.insert((sport, model_type), (versions.clone(), value.clone()));
            }
            value
        };
        Ok(CrossSeason {
            value,
            last_updated: data.iter().map(|d| d.version.last_modified).max(),
            current: Some(current),
            generations: versions.join(","),
        })
    }
}

/// Why a results page could not be planned.
#[derive(Debug)]
pub enum PageError {
    Store(StoreError),
    Paging(PagingError),
}

impl From<StoreError> for PageError {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}

/// One page of `/results`: the season served, its graded data and the plan.
#[derive(Debug)]
pub struct ResultsPage {
    pub season: SeasonLabel,
    pub data: Arc<SeasonData>,
    pub plan: Plan,
}

impl ResultsPage {
    /// The page's rows out of `rendered` (the season's rendered rows, oldest
    /// first), in the plan's order.
    pub fn rows<'a>(&self, rendered: &'a [Box<RawValue>]) -> Vec<&'a RawValue> {
        let total = rendered.len();
        let range = self.plan.page.range();
        match self.plan.order {
            Order::OldestFirst => rendered[range].iter().map(AsRef::as_ref).collect(),
            Order::NewestFirst => range.map(|i| rendered[total - 1 - i].as_ref()).collect(),
        }
    }
}

/// The history use cases.
impl History {
    /// Season choice: the named season, or the current one (the latest with a
    /// game played against a posted line) when none is named.
    pub async fn season_or_current(
        &self,
        sport: Sport,
        model_type: ModelType,
        named: Option<SeasonLabel>,
        now: DateTime<Utc>,
    ) -> Result<SeasonLabel, StoreError> {
        match named {
            Some(season) => Ok(season),
            None => self.current(sport, model_type, now).await,
        }
    }

    /// The graded season chosen by [`Self::season_or_current`]: what summary
    /// (never named) and tracking serve.
    pub async fn chosen_season(
        &self,
        sport: Sport,
        model_type: ModelType,
        named: Option<SeasonLabel>,
        now: DateTime<Utc>,
    ) -> Result<Arc<SeasonData>, StoreError> {
        let season = self.season_or_current(sport, model_type, named, now).await?;
        self.season(sport, model_type, season).await
    }

    /// The newest season with a store, whether or not a game was played.
    pub async fn latest_season(&self, sport: Sport, model_type: ModelType) -> Result<Option<SeasonLabel>, StoreError> {
        Ok(self.seasons(sport, model_type).await?.first().copied())
    }

    /// A results page: the chosen season's graded rows, paged by `request`
    /// against the season's object version.
    pub async fn results_page(
        &self,
        sport: Sport,
        model_type: ModelType,
        named: Option<SeasonLabel>,
        request: &Request,
        now: DateTime<Utc>,
    ) -> Result<ResultsPage, PageError> {
        let data = self.chosen_season(sport, model_type, named, now).await?;
        let plan = plan(request, data.total(), &data.version.version).map_err(PageError::Paging)?;
        Ok(ResultsPage {
            season: data.season,
            data,
            plan,
        })
    }

    /// What team form of the current season is computed from: the graded
    /// season, the score tape (absent when the store has none) and the ET date.
    pub async fn team_form_inputs(
        &self,
        sport: Sport,
        model_type: ModelType,
        now: DateTime<Utc>,
    ) -> Result<TeamFormInputs, StoreError> {
        let data = self.chosen_season(sport, model_type, None, now).await?;
        let tape = match self.store.scores(sport).await {
            Ok(tape) => Some(tape),
            Err(StoreError::NotFound { .. }) => None,
            Err(e) => return Err(e),
        };
        Ok(TeamFormInputs {
            season: data.season,
            data,
            tape,
            today: et_date(now),
        })
    }
}
