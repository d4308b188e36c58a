//! The history payloads: results pages, the season list, summary,
//! tracking, team form, rolling curves and density grids. Owns their JSON
//! shapes, schemas and formats; must not read a port or decide a rule (the
//! core history service does).

use chrono::NaiveDate;
use linecast_core::services::history::team_form::{TeamFormInputs, TeamFormReport};
use linecast_core::services::history::{CrossSeason, ResultsPage, SeasonData, SeasonList};
use linecast_domain::{ModelType, Sport};
use linecast_grading::{Density, Rolling, SummaryEntry, TeamForm, Tracking};
use serde::Serialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

use super::time::rfc3339;
use crate::schema::GradingRules;

fn day(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// A page of graded results.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResultsResponse<'a> {
    pub sport: String,
    pub model_type: String,
    /// The season served (the current one when `season` was omitted).
    pub season: String,
    /// Result rows: every stored column in artifact order (unknown extras
    /// included), the outcome column and IMPLIED recomputed, then `push`,
    /// `graded` and `ungraded_reason`.
    #[schema(value_type = Vec<Object>)]
    pub results: Vec<&'a RawValue>,
    /// Publication time of the season store.
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
    pub source_start: Option<String>,
    /// Last game date of the season store.
    pub source_end: Option<String>,
}

impl<'a> ResultsResponse<'a> {
    /// The page's body; `rendered` is the season's rendered rows.
    pub fn new(sport: Sport, model_type: ModelType, page: &ResultsPage, rendered: &'a [Box<RawValue>]) -> Self {
        let data = &page.data;
        let rows = page.rows(rendered);
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
pub struct SummaryResponse {
    pub sport: String,
    pub model_type: String,
    pub season: String,
    /// One entry per model with a graded pick (ENSEMBLE included). Keys:
    /// `model`, `total_games`, `wins`, `losses`, `abstained`, `win %`,
    /// `fade %`, `win % 1W`, `win % 4W`, `<pos> %`, `<neg> %`, their 1W and
    /// 4W variants (`over/under` or `home/away`), `ev roi`, `ev roi 1W`,
    /// `ev roi 4W`, `ev roi season`, `bt bets`, `bt wins`, `bt losses`,
    /// `bt units`. Percentages are 0-100 with one decimal, null without a
    /// denominator.
    #[schema(value_type = Vec<Object>)]
    pub summaries: Vec<SummaryEntry>,
    /// Publication time of the season store the summary was computed from.
    pub generated_date: String,
    /// The grading rules: rule name → the rule in one sentence.
    pub grading: GradingRules,
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
        }
    }
}

/// The model-tracking record of a season.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackingResponse {
    pub sport: String,
    /// The model type.
    pub model: String,
    pub season: String,
    /// source (live, walk_forward or mixed), models, total_games,
    /// ungraded_pushes, first_game_date, last_game_date, min_weekly_sample,
    /// snapshot {season, last_4w, last_1w: {MODEL: {win_pct, n}}}, weekly,
    /// recent_games, provenance, archive_games (equals the results total).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub tracking: Tracking,
    /// The grading rules: rule name → the rule in one sentence.
    pub grading: GradingRules,
    /// Publication time of the season store.
    pub last_updated: String,
}

impl TrackingResponse {
    pub fn new(data: &SeasonData) -> Self {
        Self {
            sport: data.sport.code().to_owned(),
            model: data.model_type.code().to_owned(),
            season: data.season.to_string(),
            tracking: (*data.tracking()).clone(),
            grading: GradingRules,
            last_updated: rfc3339(data.version.last_modified),
        }
    }
}

/// Team form for the current season.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamFormResponse {
    pub sport: String,
    pub model_type: String,
    pub current_season: String,
    /// Last game date of the season on the score tape (or in the store).
    pub season_end: Option<String>,
    pub last_n: usize,
    /// team, games, wins, losses, win_pct (0-1), last_10 (1/0, most recent last), streak, next_game_date.
    #[schema(value_type = Vec<Object>)]
    pub teams: Vec<TeamForm>,
    /// Publication time of the season archive used.
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
pub struct RollingResponse {
    pub sport: String,
    pub model_type: String,
    /// seasons: [{season, models: {MODEL: [{date, win_pct, n}]}}], historical_average: {MODEL: win_pct}.
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub rolling: Rolling,
    /// Publication time of the newest season archive used.
    pub last_updated: Option<String>,
}

impl RollingResponse {
    pub fn new(sport: Sport, model_type: ModelType, cross: &CrossSeason<Rolling>) -> Self {
        Self {
            sport: sport.code().to_owned(),
            model_type: model_type.code().to_owned(),
            rolling: (*cross.value).clone(),
            last_updated: cross.last_updated.map(rfc3339),
        }
    }
}

/// Result density: BLEND bins by season.
#[derive(Debug, Serialize, ToSchema)]
pub struct DensityResponse {
    pub sport: String,
    pub model_type: String,
    pub current_season: String,
    /// x_labels (BLEND bins of width 0.05), y_labels (seasons, the current and up to ten before), cells[season][bin] = {n, hit_rate}.
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub chart: Density,
    /// Publication time of the newest season archive used.
    pub last_updated: Option<String>,
}

impl DensityResponse {
    pub fn new(sport: Sport, model_type: ModelType, cross: &CrossSeason<Density>) -> Self {
        Self {
            sport: sport.code().to_owned(),
            model_type: model_type.code().to_owned(),
            current_season: cross.current.map(|s| s.to_string()).unwrap_or_default(),
            chart: (*cross.value).clone(),
            last_updated: cross.last_updated.map(rfc3339),
        }
    }
}
