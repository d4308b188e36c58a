//! Season history: each season store is graded, ordered and aggregated once
//! per generation (object version) and shared by results, seasons, summary,
//! tracking, team form, rolling, density and strategies, so every endpoint
//! grades the same rows with one implementation.
//!
//! Owns the season cache ([`History`]) and the history use cases (season
//! choice, results pages, team form, cross-season aggregates). Must not
//! touch HTTP or shape JSON responses (the API's presentation does); the
//! typed row in [`rows`] is the one served shape of a stored row. Every
//! use case returns a [`Derived`] value: what it computed and what that
//! depends on.

pub mod cross_season;
pub mod export;
pub mod rows;
pub mod season;
pub mod team_form;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use linecast_domain::artifacts::SeasonTable;
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_grading::density::{from_seasons, season_cells};
use linecast_grading::rolling::{pooled, rolling_season};
use linecast_grading::{Density, Rolling};
use linecast_paging::{Order, PagingError, Plan, Request, plan};

use crate::{ArtifactStore, Deps, Derived, ObjectVersion, StoreError};
pub use cross_season::CrossSeason;
use cross_season::CrossSeasonCache;
use linecast_domain::time::et_date;
pub use season::SeasonData;
use team_form::TeamFormInputs;

/// A season is live while it has a decided game within this many days.
pub const LIVE_WINDOW_DAYS: i64 = 14;

type Key = (Sport, ModelType, SeasonLabel);

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
    /// Graded seasons with the weight they were last weighed at, within
    /// the seasons share of the budget.
    cache: crate::memory::Budgeted<Key, (Arc<SeasonData>, u64)>,
    rolling: CrossSeasonCache<Rolling>,
    density: CrossSeasonCache<Density>,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History").finish_non_exhaustive()
    }
}

impl History {
    /// A graded-season cache of the default budget's seasons share.
    pub fn new(store: Arc<dyn ArtifactStore>) -> Self {
        Self::with_budget(store, crate::memory::Budget::default().seasons())
    }

    /// A cache holding graded seasons up to about `budget_bytes`; the least
    /// recently used season is dropped first (it is recomputed on next use).
    pub fn with_budget(store: Arc<dyn ArtifactStore>, budget_bytes: u64) -> Self {
        Self {
            store,
            cache: crate::memory::Budgeted::new(budget_bytes, |_, (_, weight): &(Arc<SeasonData>, u64)| *weight),
            rolling: CrossSeasonCache::default(),
            density: CrossSeasonCache::default(),
        }
    }

    /// The graded season; recomputed only when the object version changed
    /// (the season store is read only then).
    pub async fn season(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
    ) -> Result<Arc<SeasonData>, StoreError> {
        let version = self.store.season_version(sport, model_type, season).await?;
        let key = (sport, model_type, season);
        if let Some((hit, weighed)) = self.cache.get(&key).await
            && hit.version == version
        {
            // A season grows as its aggregates are computed: weighed again
            // when it has, so the share holds what is really held.
            let weight = hit.weight();
            if weight != weighed {
                self.cache.insert(key, (hit.clone(), weight)).await;
            }
            return Ok(hit);
        }
        let artifact = self.store.season(sport, model_type, season).await?;
        let data = Arc::new(SeasonData::build(sport, model_type, season, artifact));
        self.cache.insert(key, (data.clone(), data.weight())).await;
        Ok(data)
    }

    /// What the graded-season cache holds now: (entries, weight in bytes,
    /// evictions so far), for metrics.
    pub fn cache_stats(&self) -> crate::memory::CacheStats {
        self.cache.stats_weighing(|(data, _)| data.weight())
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
    ) -> Result<Derived<SeasonList>, StoreError> {
        let list = self.list_seasons(sport, model_type, now).await?;
        // The list is what it computed from the seasons and the ET date: equal
        // lists, equal bodies.
        let deps = Deps::new()
            .param(
                "seasons",
                list.seasons
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
            )
            .param(
                "current",
                list.current_season.map(|s| s.to_string()).unwrap_or_default(),
            )
            .param("live", list.live);
        Ok(Derived::new(list, deps))
    }

    async fn list_seasons(
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
        self.list_seasons(sport, model_type, now)
            .await?
            .current_season
            .ok_or_else(|| StoreError::NotFound {
                object: linecast_domain::artifacts::keys::seasons_prefix(sport, model_type),
            })
    }
}

impl History {
    /// The current version of each of `seasons`, oldest first; no season
    /// is read.
    async fn versions(
        &self,
        sport: Sport,
        model_type: ModelType,
        seasons: &[SeasonLabel],
    ) -> Result<Vec<(SeasonLabel, ObjectVersion)>, StoreError> {
        let mut out = Vec::with_capacity(seasons.len());
        for season in seasons {
            out.push((*season, self.store.season_version(sport, model_type, *season).await?));
        }
        out.sort_by_key(|(season, _)| *season);
        Ok(out)
    }

    /// The graded-season cache's copy of a season, if it holds `version`.
    async fn held_at(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
        version: &ObjectVersion,
    ) -> Option<Arc<SeasonData>> {
        self.cache
            .get(&(sport, model_type, season))
            .await
            .map(|(d, _)| d)
            .filter(|d| d.version == *version)
    }

    /// The graded season at `version`: the cache's copy when it holds that
    /// version, else graded for the caller only (not kept, so a bulk read
    /// of many seasons leaves the cache as it was).
    async fn season_unkept(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
        version: &ObjectVersion,
    ) -> Result<Arc<SeasonData>, StoreError> {
        if let Some(data) = self.held_at(sport, model_type, season, version).await {
            return Ok(data);
        }
        let artifact = self.store.season(sport, model_type, season).await?;
        Ok(Arc::new(SeasonData::build(sport, model_type, season, artifact)))
    }

    /// The rows of one season at `version`, for an aggregate over several
    /// seasons: the graded copy's when this cache holds that version, else
    /// the season store parsed for this computation only (neither graded
    /// nor kept, so such an aggregate never pushes graded seasons out of the
    /// budget). Callers take one season at a time and drop it before the
    /// next, so at most one extra season is in memory.
    async fn rows_of(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
        version: &ObjectVersion,
    ) -> Result<Arc<SeasonTable>, StoreError> {
        match self.held_at(sport, model_type, season, version).await {
            Some(data) => Ok(data.table.clone()),
            None => Ok(self.store.season(sport, model_type, season).await?.value),
        }
    }

    /// Rolling curves over every archived season, recomputed only when a
    /// season's generation changed.
    pub async fn rolling(
        &self,
        sport: Sport,
        model_type: ModelType,
    ) -> Result<Derived<CrossSeason<Rolling>>, StoreError> {
        let seasons = self.seasons(sport, model_type).await?;
        let versions = self.versions(sport, model_type, &seasons).await?;
        let generations: Vec<String> = versions.iter().map(|(_, v)| v.version.clone()).collect();
        let key = (sport, model_type);
        let value = if let Some(hit) = self.rolling.get(key, &generations) {
            hit
        } else {
            let mut parts = Vec::with_capacity(versions.len());
            for (season, version) in &versions {
                let table = self.rows_of(sport, model_type, *season, version).await?;
                parts.push(rolling_season(*season, &table.rows, sport, model_type));
            }
            self.rolling.get_or_compute(key, &generations, || pooled(parts))
        };
        Ok(Derived::new(
            CrossSeason::new(value, &versions, versions.last().map(|(s, _)| *s)),
            all_deps(&versions),
        ))
    }

    /// Density grids of the current season against the previous ten.
    pub async fn density(
        &self,
        sport: Sport,
        model_type: ModelType,
        now: DateTime<Utc>,
    ) -> Result<Derived<CrossSeason<Density>>, StoreError> {
        let current = self.current(sport, model_type, now).await?;
        let seasons: Vec<SeasonLabel> = self
            .seasons(sport, model_type)
            .await?
            .into_iter()
            .filter(|s| linecast_grading::density::on_grid(*s, current))
            .collect();
        let versions = self.versions(sport, model_type, &seasons).await?;
        let mut generations: Vec<String> = versions.iter().map(|(_, v)| v.version.clone()).collect();
        generations.push(current.to_string());
        let key = (sport, model_type);
        let value = if let Some(hit) = self.density.get(key, &generations) {
            hit
        } else {
            let mut parts = Vec::with_capacity(versions.len());
            for (season, version) in &versions {
                let table = self.rows_of(sport, model_type, *season, version).await?;
                parts.push((*season, season_cells(&table.rows, sport, model_type)));
            }
            self.density.get_or_compute(key, &generations, || from_seasons(parts))
        };
        Ok(Derived::new(
            CrossSeason::new(value, &versions, Some(current)),
            all_deps(&versions).param("current", current),
        ))
    }
}

/// Every season's store version, oldest first.
fn all_deps(versions: &[(SeasonLabel, ObjectVersion)]) -> Deps {
    versions.iter().fold(Deps::new(), |deps, (_, v)| deps.object(v))
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
    /// The page's rows as positions among the season's served rows (oldest
    /// first, as [`SeasonData::served_rows`] yields them), in the plan's order.
    pub fn positions(&self) -> Vec<usize> {
        let total = self.data.total();
        let range = self.plan.page.range();
        match self.plan.order {
            Order::OldestFirst => range.collect(),
            Order::NewestFirst => range.map(|i| total - 1 - i).collect(),
        }
    }

    /// What the page depends on: the season's version and the plan.
    fn deps(&self) -> Deps {
        let order = match self.plan.order {
            Order::OldestFirst => "oldest",
            Order::NewestFirst => "newest",
        };
        self.data
            .deps()
            .param("order", order)
            .param("offset", self.plan.page.offset)
            .param("returned", self.plan.page.range().len())
            .param("snapshot", self.plan.snapshot.as_deref().unwrap_or(""))
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
    ) -> Result<Derived<Arc<SeasonData>>, StoreError> {
        let season = self.season_or_current(sport, model_type, named, now).await?;
        let data = self.season(sport, model_type, season).await?;
        let deps = data.deps();
        Ok(Derived::new(data, deps))
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
    ) -> Result<Derived<ResultsPage>, PageError> {
        let data = self.chosen_season(sport, model_type, named, now).await?.value;
        let plan = plan(request, data.total(), &data.version.version).map_err(PageError::Paging)?;
        let page = ResultsPage {
            season: data.season,
            data,
            plan,
        };
        let deps = page.deps();
        Ok(Derived::new(page, deps))
    }

    /// What team form of the current season is computed from: the graded
    /// season, the score tape (absent when the store has none) and the ET date.
    pub async fn team_form_inputs(
        &self,
        sport: Sport,
        model_type: ModelType,
        now: DateTime<Utc>,
    ) -> Result<Derived<TeamFormInputs>, StoreError> {
        let Derived { value: data, deps } = self.chosen_season(sport, model_type, None, now).await?;
        let (tape, deps) = match self.store.scores(sport).await {
            Ok(tape) => {
                let deps = deps.object(&tape.version);
                (Some(tape), deps)
            }
            Err(StoreError::NotFound { object }) => (None, deps.absent(object)),
            Err(e) => return Err(e),
        };
        // Next game dates are on or after today.
        let today = et_date(now);
        Ok(Derived::new(
            TeamFormInputs {
                season: data.season,
                data,
                tape,
                today,
            },
            deps.param("today", today),
        ))
    }
}
