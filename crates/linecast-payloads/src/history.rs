//! The history payloads: results pages, the season list, summary,
//! tracking, team form, rolling curves and density grids. Owns their JSON
//! shapes, schemas and formats; must not read a port or decide a rule (the
//! core history service does).

use std::collections::BTreeMap;

use chrono::NaiveDate;
use linecast_core::services::history::team_form::{TeamFormInputs, TeamFormReport};
use linecast_core::services::history::{CrossSeason, ResultsPage, SeasonData, SeasonList};
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_grading::settlement::Unsettled;
use linecast_grading::tracking::{RecentGame, TrackingSnapshot, WeeklyPoint};
use linecast_grading::{
    Density, DensityCell, ForecastSource, Model, Rolling, RollingSeason, SummaryEntry, TeamForm, Tracking,
};
use serde::Serialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

use crate::schema::GradingRules;
use crate::shapes::{
    DensityCellShape, ForecastSourceCode, RecentGameShape, ResultRow, RollingSeasonShape, SummaryEntryShape,
    TeamFormEntry, TrackingSnapshotShape, WeeklyPointShape,
};
use crate::time::rfc3339;

fn day(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// A page of graded results.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultsResponse<'a> {
    pub sport: String,
    pub model_type: String,
    /// The season served (the current one when `season` was omitted).
    pub season: String,
    /// Result rows: every stored column in artifact order (unknown extras
    /// included), the outcome column and IMPLIED recomputed, then `push`,
    /// `graded`, `ungraded_reason`, `game_id`, `archive_check` and
    /// `forecast_digest`.
    #[schema(value_type = Vec<ResultRow>)]
    pub results: Vec<&'a RawValue>,
    /// Publication time of the season store.
    #[schema(format = DateTime)]
    pub last_updated: String,
    /// Every row of the season, graded or not.
    pub total: usize,
    pub returned: usize,
    pub offset: usize,
    /// `offset + returned` while below `total`, else null.
    pub next_offset: Option<usize>,
    /// With `season`: the generation token to echo on later pages; null otherwise.
    pub snapshot: Option<String>,
    /// First game date of the season store.
    #[schema(format = Date)]
    pub source_start: Option<String>,
    /// Last game date of the season store.
    #[schema(format = Date)]
    pub source_end: Option<String>,
}

impl<'a> ResultsResponse<'a> {
    /// The page's body; `rendered` is the season's rendered rows, oldest
    /// first (`result_rows::render_rows`).
    pub fn new(sport: Sport, model_type: ModelType, page: &ResultsPage, rendered: &'a [Box<RawValue>]) -> Self {
        let data = &page.data;
        let rows: Vec<&RawValue> = page.positions().into_iter().map(|i| rendered[i].as_ref()).collect();
        Self {
            sport: sport.code().to_owned(),
            model_type: model_type.code().to_owned(),
            season: page.season.to_string(),
            returned: rows.len(),
            results: rows,
            last_updated: rfc3339(data.version.last_modified),
            total: data.total(),
            offset: page.plan.page.offset,
            next_offset: page.plan.page.next_offset,
            snapshot: page.plan.snapshot.clone(),
            source_start: data.first_date().map(day),
            source_end: data.last_date().map(day),
        }
    }
}

/// The seasons with history.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeasonsResponse {
    pub sport: String,
    pub model_type: String,
    /// Newest first.
    pub seasons: Vec<String>,
    /// Latest season with a game played against a posted line.
    pub current_season: Option<String>,
    /// True while the current season has a decided game within 14 days.
    pub live: bool,
    /// The current season while live, else null.
    pub live_season: Option<String>,
}

impl SeasonsResponse {
    pub fn new(sport: Sport, model_type: ModelType, list: &SeasonList) -> Self {
        let current = list.current_season.map(|s| s.to_string());
        Self {
            sport: sport.code().to_owned(),
            model_type: model_type.code().to_owned(),
            seasons: list.seasons.iter().map(ToString::to_string).collect(),
            live_season: if list.live { current.clone() } else { None },
            current_season: current,
            live: list.live,
        }
    }
}

/// Per-model performance for the current season.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SummaryResponse {
    pub sport: String,
    pub model_type: String,
    pub season: String,
    /// One entry per model with a graded pick (ENSEMBLE included), in the
    /// order IMPLIED, AI, BLEND, CATB, RF, LGB, LOGR, XGB, XT, ENSEMBLE.
    #[schema(value_type = Vec<SummaryEntryShape>)]
    pub summaries: Vec<SummaryEntry>,
    /// Publication time of the season store the summary was computed from.
    #[schema(format = DateTime)]
    pub generated_date: String,
    /// The grading rules: rule name → the rule in one sentence.
    pub grading: GradingRules,
    /// Of the season's graded games, the finals whose `settlement_status`
    /// is not settled, by status: graded as recorded (the `settlement`
    /// rule), and counted.
    #[schema(value_type = crate::calibration::UnsettledShape)]
    pub unsettled: Unsettled,
}

/// The graded served rows of `data` whose final is not settled, by status:
/// the count summary, tracking and calibration each state.
fn unsettled(data: &SeasonData) -> Unsettled {
    Unsettled::of(data.served_rows().filter(|(_, g)| g.graded).map(|(row, _)| row))
}

impl SummaryResponse {
    pub fn new(data: &SeasonData) -> Self {
        Self {
            sport: data.sport.code().to_owned(),
            model_type: data.model_type.code().to_owned(),
            season: data.season.to_string(),
            summaries: data.summary().entries.clone(),
            generated_date: rfc3339(data.version.last_modified),
            grading: GradingRules,
            unsettled: unsettled(data),
        }
    }
}

/// The model-tracking record of a season: where its probabilities came
/// from, season and trailing win rates per model, a weekly rolling-4W
/// series, the recent hit/miss matrix and provenance counts.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackingResponse {
    pub sport: String,
    /// The model type.
    pub model: String,
    pub season: String,
    /// `live` (every predicted game recorded before it started),
    /// `walk_forward` (reconstructed out of sample) or `mixed`; null when no
    /// in-scope row carries a known source.
    #[schema(value_type = Option<ForecastSourceCode>, required = true)]
    pub source: Option<ForecastSource>,
    /// Models with at least one graded pick, in summary order.
    #[schema(value_type = Vec<String>)]
    pub models: Vec<Model>,
    /// Graded games.
    pub total_games: usize,
    /// In-scope games that pushed.
    pub ungraded_pushes: usize,
    #[schema(required = true)]
    pub first_game_date: Option<NaiveDate>,
    #[schema(required = true)]
    pub last_game_date: Option<NaiveDate>,
    /// Weekly points with fewer graded picks than this show a null rate.
    pub min_weekly_sample: usize,
    #[schema(value_type = TrackingSnapshotShape)]
    pub snapshot: TrackingSnapshot,
    /// Oldest first, one point every 7 days ending on the latest decided date.
    #[schema(value_type = Vec<WeeklyPointShape>)]
    pub weekly: Vec<WeeklyPoint>,
    /// The latest graded games (up to 20), newest first.
    #[schema(value_type = Vec<RecentGameShape>)]
    pub recent_games: Vec<RecentGame>,
    /// Count of each `model_probability_source` value over in-scope rows;
    /// rows without one count under `none`.
    pub provenance: BTreeMap<String, usize>,
    /// In-scope rows of the season: equals the results `total`.
    pub archive_games: usize,
    /// The grading rules: rule name → the rule in one sentence.
    pub grading: GradingRules,
    /// Publication time of the season store.
    #[schema(format = DateTime)]
    pub last_updated: String,
    /// Of `total_games`, the finals whose `settlement_status` is not
    /// settled, by status: graded as recorded (the `settlement` rule), and
    /// counted.
    #[schema(value_type = crate::calibration::UnsettledShape)]
    pub unsettled: Unsettled,
}

impl TrackingResponse {
    pub fn new(data: &SeasonData) -> Self {
        let Tracking {
            source,
            models,
            total_games,
            ungraded_pushes,
            first_game_date,
            last_game_date,
            min_weekly_sample,
            snapshot,
            weekly,
            recent_games,
            provenance,
            archive_games,
        } = (*data.tracking()).clone();
        Self {
            sport: data.sport.code().to_owned(),
            model: data.model_type.code().to_owned(),
            season: data.season.to_string(),
            source,
            models,
            total_games,
            ungraded_pushes,
            first_game_date,
            last_game_date,
            min_weekly_sample,
            snapshot,
            weekly,
            recent_games,
            provenance,
            archive_games,
            grading: GradingRules,
            last_updated: rfc3339(data.version.last_modified),
            unsettled: unsettled(data),
        }
    }
}

/// Team form for the current season.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamFormResponse {
    pub sport: String,
    pub model_type: String,
    pub current_season: String,
    /// Last game date of the season on the score tape (or in the store).
    pub season_end: Option<String>,
    pub last_n: usize,
    /// One entry per team with a decided game, sorted by team slug.
    #[schema(value_type = Vec<TeamFormEntry>)]
    pub teams: Vec<TeamForm>,
    /// Publication time of the season archive used.
    #[schema(format = DateTime)]
    pub last_updated: String,
}

impl TeamFormResponse {
    pub fn new(inputs: &TeamFormInputs, report: TeamFormReport) -> Self {
        let data = &inputs.data;
        Self {
            sport: data.sport.code().to_owned(),
            model_type: data.model_type.code().to_owned(),
            current_season: inputs.season.to_string(),
            season_end: report.season_end.map(day),
            last_n: 10,
            teams: report.teams,
            last_updated: rfc3339(data.version.last_modified),
        }
    }
}

/// Rolling 4-week curves, one per archived season.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RollingResponse {
    pub sport: String,
    pub model_type: String,
    /// One entry per archived season, oldest first.
    #[schema(value_type = Vec<RollingSeasonShape>)]
    pub seasons: Vec<RollingSeason>,
    /// Per model: total wins / total graded picks over every season,
    /// percent with one decimal (pooled, so a long season weighs more).
    #[schema(value_type = HashMap<String, f64>)]
    pub historical_average: linecast_grading::PerModel<f64>,
    /// Publication time of the newest season archive used.
    #[schema(required = true)]
    #[schema(format = DateTime)]
    pub last_updated: Option<String>,
}

impl RollingResponse {
    pub fn new(sport: Sport, model_type: ModelType, cross: &CrossSeason<Rolling>) -> Self {
        let Rolling {
            seasons,
            historical_average,
        } = (*cross.value).clone();
        Self {
            sport: sport.code().to_owned(),
            model_type: model_type.code().to_owned(),
            seasons,
            historical_average,
            last_updated: cross.last_updated.map(rfc3339),
        }
    }
}

/// Result density: BLEND probability bins by season, each cell the number of
/// graded BLEND picks in the bin and how often they hit.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DensityResponse {
    pub sport: String,
    pub model_type: String,
    pub current_season: String,
    /// Bin labels of width 0.05, `0.00-0.05` ... `0.95-1.00` (the last bin
    /// includes 1.0).
    pub x_labels: Vec<String>,
    /// Seasons with rows, oldest first: the current one and up to ten before it.
    #[schema(value_type = Vec<String>)]
    pub y_labels: Vec<SeasonLabel>,
    /// `cells[season][bin]`, aligned with `y_labels` and `x_labels`.
    #[schema(value_type = Vec<Vec<DensityCellShape>>)]
    pub cells: Vec<Vec<DensityCell>>,
    /// Publication time of the newest season archive used.
    #[schema(required = true)]
    #[schema(format = DateTime)]
    pub last_updated: Option<String>,
}

impl DensityResponse {
    pub fn new(sport: Sport, model_type: ModelType, cross: &CrossSeason<Density>) -> Self {
        let Density {
            x_labels,
            y_labels,
            cells,
        } = (*cross.value).clone();
        Self {
            sport: sport.code().to_owned(),
            model_type: model_type.code().to_owned(),
            current_season: cross.current.map(|s| s.to_string()).unwrap_or_default(),
            x_labels,
            y_labels,
            cells,
            last_updated: cross.last_updated.map(rfc3339),
        }
    }
}
